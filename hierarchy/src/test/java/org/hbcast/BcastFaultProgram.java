package org.hbcast;

import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Map;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * Fault injection: after one good broadcast, every rank runs large broadcasts back to back while
 * rank {@code victim} suffers a fault; each rank reports how its first failing call ended. Arguments
 * {@code key=value}:
 * <ul>
 *   <li>{@code fault=kill}: the victim SIGKILLs itself, {@code when=before} the next call or
 *       {@code when=MS} milliseconds into the broadcasts (lands anywhere in the tree or ring);</li>
 *   <li>{@code fault=silent}: the victim never calls bcast, sleeps {@code away=S} seconds, exits;</li>
 *   <li>{@code fault=stop}: the victim has itself SIGSTOPped {@code when=MS} ms into the broadcasts
 *       for {@code away=S} seconds, then SIGCONTed;</li>
 *   <li>{@code fault=netcut}: on a test bed, the victim takes its host's eth0 down {@code when=MS}
 *       ms into the broadcasts for {@code away=S} seconds ({@code ip link set eth0 down});</li>
 *   <li>{@code algorithm=auto|hierarchical|knomial}, {@code bytes=N} (default 64 MiB).</li>
 * </ul>
 * A rank whose call failed, as it should, reports the failure of case {@value #FAULT_CASE} with the
 * error's message and figures {@code failedCall} (which call), {@code callSeconds} (how long it took)
 * and {@code faultSeconds} (since the broadcasts began); verdict {@code failed call N after X s
 * (Y s into the faults): MESSAGE}. A silent victim passes case {@value #SILENT_CASE}.
 */
public final class BcastFaultProgram {
    /** Calls after which a rank gives up waiting for the fault to reach it. */
    private static final int MAX_CALLS = 2000;
    /** The case that fails on a rank the fault reaches. */
    static final String FAULT_CASE = "broadcasts during the fault";
    /** The case of the victim of {@code fault=silent}. */
    static final String SILENT_CASE = "stay away from the broadcasts";

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(
                args,
                (world, rest, report) -> run(world, BcastMatrixProgram.parse(rest), report),
                MpiTestProgram.Finish.EXIT);
    }

    private static String run(Intracomm world, Map<String, String> opt, RankReport report) throws Exception {
        String fault = opt.getOrDefault("fault", "kill");
        int victim = Integer.parseInt(opt.getOrDefault("victim", Integer.toString(world.getSize() - 1)));
        String when = opt.getOrDefault("when", "50");
        double away = Double.parseDouble(opt.getOrDefault("away", "10"));
        int bytes = Integer.parseInt(opt.getOrDefault("bytes", Integer.toString(64 << 20)));
        Algorithm algorithm = Algorithm.parse(opt.getOrDefault("algorithm", "auto"));
        int rank = world.getRank();
        HierarchicalBcast hb =
                HierarchicalBcast.create(world, BcastOptions.defaults().withAlgorithm(algorithm));
        ByteBuffer data = ByteBuffer.allocateDirect(bytes);
        // Everybody is up and connected.
        report.check("broadcast before the faults", () -> hb.bcast(data, bytes, MPI.BYTE, 0));
        world.barrier();
        long start = System.nanoTime();
        if (rank == victim) {
            long pid = ProcessHandle.current().pid();
            switch (fault) {
                case "kill" -> {
                    if (when.equals("before")) {
                        kill9(pid);
                    } else {
                        Thread killer = new Thread(() -> {
                            sleep(Long.parseLong(when));
                            kill9(pid);
                        });
                        killer.setDaemon(true);
                        killer.start();
                    }
                }
                case "silent" -> {
                    sleep(Math.round(away * 1000));
                    report.pass(SILENT_CASE).figure("awaySeconds", away);
                    return String.format(Locale.ROOT, "stayed away for %.1f s, never called bcast", away);
                }
                case "stop" ->
                    shell(String.format(
                            Locale.ROOT,
                            "sleep %.3f; kill -STOP %d; sleep %.1f; kill -CONT %d",
                            Long.parseLong(when) / 1000.0,
                            pid,
                            away,
                            pid));
                case "netcut" ->
                    shell(String.format(
                            Locale.ROOT,
                            "sleep %.3f; ip link set eth0 down; sleep %.1f; ip link set eth0 up",
                            Long.parseLong(when) / 1000.0,
                            away));
                default -> throw new IllegalArgumentException("unknown fault " + fault);
            }
        }
        for (int i = 0; i < MAX_CALLS; i++) {
            long callStart = System.nanoTime();
            try {
                hb.bcast(data, bytes, MPI.BYTE, 0);
            } catch (MPIException e) {
                long now = System.nanoTime();
                report.fail(FAULT_CASE, e.getMessage())
                        .figure("failedCall", i)
                        .figure("callSeconds", (now - callStart) / 1e9)
                        .figure("faultSeconds", (now - start) / 1e9);
                return String.format(
                        Locale.ROOT,
                        "failed call %d after %.1f s (%.1f s into the faults): %s",
                        i,
                        (now - callStart) / 1e9,
                        (now - start) / 1e9,
                        e.getMessage());
            }
        }
        throw new AssertionError(MAX_CALLS + " broadcasts succeeded although rank " + victim + " suffered " + fault);
    }

    private static void kill9(long pid) {
        try {
            new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
        } catch (Exception e) {
            Runtime.getRuntime().halt(9);
        }
        Runtime.getRuntime().halt(9);
    }

    /** Runs a script in a process of its own, which a SIGSTOP of this JVM does not stop. */
    private static void shell(String script) throws Exception {
        new ProcessBuilder("sh", "-c", script)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.INHERIT)
                .start();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
