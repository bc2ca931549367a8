package org.hbcast;

import java.nio.ByteBuffer;
import java.util.Map;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.call.ElementType;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * Failure cases, each rank reporting what it saw. {@code suite=arguments}: bad arguments fail
 * with a clear message on every rank and nothing is sent (the next valid call still works);
 * {@code suite=check}: check mode turns mismatched counts into an error on every rank;
 * {@code suite=kill}: the last rank SIGKILLs itself during a large broadcast, and every other rank
 * must fail with a clear error within the timeout; {@code suite=late}: rank 0, the root, comes
 * {@code late=S} seconds late to its third broadcast, which the others wait for as Open MPI would
 * (or, with {@code HBCAST_TIMEOUT_FAILS=1}, fail after the timeout: case {@value #LATE_CASE}, its
 * message a note).
 *
 * <p>Each expected error is a case whose message is kept as a note of the case's name. In
 * {@code suite=kill} a surviving rank's broadcasts fail as they should: it reports that as the
 * failure of case {@value #KILL_CASE}, with figure {@code seconds} (from the first of those
 * broadcasts to the failure).
 */
public final class BcastFailureProgram {
    /** The case of {@code suite=kill} that fails on every surviving rank. */
    static final String KILL_CASE = "broadcasts while the last rank is killed";

    public static void main(String[] args) throws Exception {
        Map<String, String> opt = BcastMatrixProgram.parse(args);
        String suite = opt.getOrDefault("suite", "arguments");
        MpiTestProgram.run(
                args,
                (world, rest, report) -> switch (suite) {
                    case "arguments" -> arguments(world, report);
                    case "check" -> check(world, report);
                    case "kill" -> kill(world, report);
                    case "late" -> late(world, report, Integer.parseInt(opt.getOrDefault("late", "8")));
                    default -> throw new IllegalArgumentException("unknown suite " + suite);
                },
                suite.equals("kill") ? MpiTestProgram.Finish.EXIT : MpiTestProgram.Finish.FINALIZE);
    }

    /** The case of {@code suite=late} that waits for the late root (and fails, where failing was asked for). */
    static final String LATE_CASE = "the call the root is late for";

    /**
     * Four broadcasts of 4 KiB from rank 0, the third after rank 0 slept {@code lateSeconds}; every
     * rank checks every byte of every call it completes. Where a time-out fails the call, the waiting
     * ranks' instance is unusable after it: they stop there.
     */
    private static String late(Intracomm world, RankReport report, int lateSeconds) throws Exception {
        int rank = world.getRank();
        // Read as the library reads it, without its API, so that this program ran on the code before the option.
        boolean fails = "1".equals(System.getenv("HBCAST_TIMEOUT_FAILS"));
        HierarchicalBcast hb = HierarchicalBcast.create(world);
        byte[] data = new byte[4096];
        for (int call = 1; call <= 4; call++) {
            for (int i = 0; i < data.length; i++) {
                data[i] = rank == 0 ? (byte) (i * 7 + call) : (byte) -1;
            }
            boolean isLate = call == 3;
            if (isLate && rank == 0) {
                Thread.sleep(lateSeconds * 1000L);
            }
            String name = isLate ? LATE_CASE : "call " + call;
            if (isLate && fails && rank != 0) {
                ExpectError.into(report, name, "root 0", () -> hb.bcast(data, data.length, MPI.BYTE, 0));
                hb.close();
                return "failed after the timeout waiting for the late root, as asked";
            }
            long start = System.nanoTime();
            hb.bcast(data, data.length, MPI.BYTE, 0);
            if (isLate) {
                report.figure("lateSeconds", (System.nanoTime() - start) / 1e9);
            }
            for (int i = 0; i < data.length; i++) {
                if (data[i] != (byte) (i * 7 + call)) {
                    throw new AssertionError(
                            name + ": byte " + i + " is " + data[i] + ", want " + (byte) (i * 7 + call));
                }
            }
            report.pass(name);
        }
        hb.close();
        return "waited for the late root";
    }

    /** Nine bad calls (cases named as the notes of their messages), then a valid one. */
    private static String arguments(Intracomm world, RankReport report) throws Exception {
        int size = world.getSize();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            double[] data = new double[64];
            ExpectError.into(
                    report,
                    "root past the last rank",
                    "root " + size + " is out of range",
                    () -> hb.bcast(data, 8, MPI.DOUBLE, size));
            ExpectError.into(report, "root -1", "root -1 is out of range", () -> hb.bcast(data, 8, MPI.DOUBLE, -1));
            ExpectError.into(report, "negative count", "count -3 is negative", () -> hb.bcast(data, -3, MPI.DOUBLE, 0));
            ExpectError.into(
                    report,
                    "count past the buffer",
                    "needs 520 bytes but the buffer holds 512",
                    () -> hb.bcast(data, 65, MPI.DOUBLE, 0));
            ExpectError.into(
                    report, "int[] for MPI.DOUBLE", "needs a double[]", () -> hb.bcast(new int[64], 8, MPI.DOUBLE, 0));
            ExpectError.into(
                    report,
                    "heap buffer",
                    "heap (non-direct)",
                    () -> hb.bcast(ByteBuffer.allocate(64), 8, MPI.BYTE, 0));
            ExpectError.into(report, "MPI.INT2", "is not supported", () -> hb.bcast(new int[64], 8, MPI.INT2, 0));
            ExpectError.into(report, "null buffer", "buffer is null", () -> hb.bcast(null, 8, MPI.INT, 0));
            ExpectError.into(
                    report,
                    "LongBuffer for MPI.INT",
                    "needs a ByteBuffer or a IntBuffer",
                    () -> hb.bcast(ByteBuffer.allocateDirect(64).asLongBuffer(), 2, MPI.INT, 0));
            // Nothing was sent: a valid call right after still delivers exactly the root's data.
            BcastMatrixProgram.check(report, hb, world, Payload.Kind.ARRAY, ElementType.DOUBLE, 300_000, size - 1, 77);
        }
        return "bad calls rejected, the next call delivered";
    }

    /** Two mismatched calls in check mode (cases named as the notes of their messages), then a valid one. */
    private static String check(Intracomm world, RankReport report) throws Exception {
        try (HierarchicalBcast hb =
                HierarchicalBcast.create(world, BcastOptions.defaults().withCheck(true))) {
            byte[] data = new byte[1 << 20];
            int count = world.getRank() == 0 ? 100_000 : 100_001;
            ExpectError.into(
                    report, "count mismatch", "ranks disagree on the call", () -> hb.bcast(data, count, MPI.BYTE, 0));
            int root = world.getRank() == 1 ? 0 : 1;
            ExpectError.into(
                    report, "root mismatch", "ranks disagree on the root", () -> hb.bcast(data, 1000, MPI.BYTE, root));
            BcastMatrixProgram.check(report, hb, world, Payload.Kind.BUFFER, ElementType.BYTE, 500_000, 0, 78);
        }
        return "check mode caught both mismatches";
    }

    private static String kill(Intracomm world, RankReport report) throws Exception {
        int rank = world.getRank();
        int victim = world.getSize() - 1;
        HierarchicalBcast hb = HierarchicalBcast.create(world);
        ByteBuffer data = ByteBuffer.allocateDirect(64 << 20);
        // Everybody is up and connected.
        report.check("broadcast before the kill", () -> hb.bcast(data, 1 << 20, MPI.BYTE, 0));
        if (rank == victim) {
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(20);
                    new ProcessBuilder(
                                    "kill",
                                    "-9",
                                    Long.toString(ProcessHandle.current().pid()))
                            .start()
                            .waitFor();
                } catch (Exception e) {
                    Runtime.getRuntime().halt(9);
                }
            });
            killer.start();
        }
        long start = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            try {
                hb.bcast(data, data.capacity(), MPI.BYTE, 0);
            } catch (MPIException e) {
                double seconds = (System.nanoTime() - start) / 1e9;
                report.fail(KILL_CASE, e.getMessage()).figure("seconds", seconds);
                return String.format("failed after %.1f s: %s", seconds, e.getMessage());
            }
        }
        throw new AssertionError("1000 broadcasts succeeded although rank " + victim + " was killed");
    }
}
