package org.hbcast.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.HierarchicalBcast;
import org.hbcast.settings.Setting;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Broadcast latency the way application code meets it: instances made with
 * {@code HierarchicalBcast.create}, a few warm-up calls, then short blocks of back-to-back calls on
 * one direct buffer, the implementations interleaved block by block. A block's time is the slowest
 * rank's, per call; the figure is the median over blocks. Unlike OSU's per-rank mean, no rank can
 * run ahead of the others, so the figure is the latency of a complete broadcast.
 *
 * <p>Before the table it times what a program meets first: a fresh instance's creation and its
 * first 1, 10 and 100 calls ({@code --cold}).
 *
 * <p>Implementations are those of {@code OsuBcast --impl} ({@code ALGORITHM[/INTRA][/INTER][/CHUNK][:COUNTS]}) and {@code mpi},
 * a plain {@code MPI.COMM_WORLD.bcast}. Naming one twice measures it against itself: the A/A noise
 * floor of the run, printed beside the ratios.
 */
@Command(name = "user-probe", description = "Broadcast latency as applications call it: short interleaved blocks.")
public final class UserProbe implements Callable<Integer> {
    @Option(
            names = {"-m", "--message-size"},
            paramLabel = "[MIN:]MAX",
            description = "sizes in bytes, doubling (default 1:4194304)")
    String sizes = "1:4194304";

    @Option(
            names = "--impl",
            split = ",",
            description = "implementations, the first is the reference (default mpi,auto,mpi)")
    List<String> impls = List.of("mpi", "auto", "mpi");

    @Option(names = "--blocks", description = "blocks per implementation and size (default 7)")
    int blocks = 7;

    @Option(names = "--calls", description = "calls per block (default 20)")
    int calls = 20;

    @Option(
            names = "--each-block",
            description = "also print every block's time a call, in the order they ran (where a run's first calls go)")
    boolean eachBlock;

    @Option(names = "--warmup", description = "warm-up calls per implementation and size (default 3)")
    int warmup = 3;

    @Option(
            names = "--cold",
            split = ",",
            paramLabel = "SIZE",
            description =
                    "before the table, the first calls of a"
                            + " fresh instance of each implementation at these sizes in bytes (default 1024,65536,1048576; 0 for none)")
    List<Long> coldSizes = List.of(1024L, 65536L, 1048576L);

    @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON (rank 0)")
    Path json;

    @Option(
            names = "--breakdown",
            description = "at the end, every rank prints where each implementation's calls spent their time, by"
                    + " size (as HBCAST_BREAKDOWN=1; cold starts excluded)")
    boolean breakdown;

    /** Calls timed from a fresh instance: the first, the first 10 and the first 100 are reported. */
    static final int COLD_CALLS = 100;

    private Intracomm world;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new UserProbe(), args);
    }

    @Override
    public Integer call() throws Exception {
        world = MPI.COMM_WORLD;
        CommandLine cli = new CommandLine(this);
        long[] range = OsuBcast.sizesOption(cli, sizes);
        if (blocks < 1 || calls < 1 || warmup < 0) {
            throw new CommandLine.ParameterException(
                    cli,
                    "--blocks and --calls must be at least 1 and --warmup at least" + " 0, not " + blocks + ", " + calls
                            + ", " + warmup);
        }
        for (String impl : impls) {
            OsuBcast.options(cli, impl.equals("mpi") ? "native" : impl); // a bad name fails before any run
        }
        long largest = range[1];
        for (long c : coldSizes) {
            if (c < 0 || c > Integer.MAX_VALUE / 2) {
                throw new CommandLine.ParameterException(cli, "--cold sizes must be 0 to " + Integer.MAX_VALUE / 2);
            }
            largest = Math.max(largest, c);
        }
        ByteBuffer buf = ByteBuffer.allocateDirect((int) largest);
        List<Map<String, Object>> cold = coldStarts(cli, buf);
        if (breakdown) {
            // Read at create: after the cold starts, whose instances would otherwise print theirs too.
            System.setProperty(Setting.BREAKDOWN.property(), "1");
        }
        List<HierarchicalBcast> instances = new ArrayList<>();
        for (String impl : impls) {
            instances.add(impl.equals("mpi") ? null : HierarchicalBcast.create(world, OsuBcast.options(cli, impl)));
        }
        int twin = impls.subList(1, impls.size()).indexOf(impls.get(0)) + 1;
        if (world.getRank() == 0) {
            header(twin);
        }
        double[] us = new double[impls.size()];
        double[] blockTimes = new double[blocks];
        List<Long> sizes = new ArrayList<>();
        List<List<Double>> columns = new ArrayList<>();
        for (int k = 0; k < impls.size(); k++) {
            columns.add(new ArrayList<>());
        }
        for (long size = range[0]; size <= range[1]; size *= 2) {
            double[][] times = new double[impls.size()][blocks];
            for (int k = 0; k < impls.size(); k++) {
                for (int i = 0; i < warmup; i++) {
                    call(instances.get(k), buf, (int) size);
                }
            }
            for (int b = 0; b < blocks; b++) {
                for (int j = 0; j < impls.size(); j++) {
                    int k = (j + b) % impls.size(); // rotate so that no implementation always goes first
                    times[k][b] = block(instances.get(k), buf, (int) size);
                }
            }
            for (int k = 0; k < impls.size(); k++) {
                System.arraycopy(times[k], 0, blockTimes, 0, blocks);
                Arrays.sort(blockTimes);
                us[k] = blockTimes[blocks / 2] * 1e6;
            }
            if (world.getRank() == 0) {
                row(size, us, twin);
                if (eachBlock) {
                    blocks(times);
                }
            }
            sizes.add(size);
            for (int k = 0; k < impls.size(); k++) {
                columns.get(k).add(us[k]);
            }
        }
        for (int k = 0; k < impls.size(); k++) {
            HierarchicalBcast hb = instances.get(k);
            if (hb != null) {
                if (breakdown) {
                    // Each instance prints its breakdown at close: name it first, one instance at a time.
                    world.barrier();
                    if (world.getRank() == 0) {
                        System.err.println("# breakdown of " + impls.get(k) + " (column " + (k + 1) + "):");
                        System.err.flush();
                    }
                    world.barrier();
                }
                hb.close();
            }
        }
        if (json != null && world.getRank() == 0) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("ranks", world.getSize());
            doc.put("warmup", warmup);
            doc.put("blocks", blocks);
            doc.put("calls", calls);
            doc.put("impls", impls);
            doc.put("sizes", sizes);
            doc.put("us", columns);
            doc.put("cold", cold);
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), doc);
        }
        return 0;
    }

    /**
     * What a program meets first: for each size and each implementation (once each, in the order
     * given), a fresh instance is made and timed, then its first {@link #COLD_CALLS} calls from a
     * barrier. The figures are the slowest rank's elapsed time to the end of call 1, 10 and 100.
     * Run before anything else, so the first hbcast instance runs with a cold JIT, as in a program.
     */
    private List<Map<String, Object>> coldStarts(CommandLine cli, ByteBuffer buf) throws MPIException {
        List<Map<String, Object>> rows = new ArrayList<>();
        List<String> distinct = impls.stream().distinct().toList();
        boolean printed = false;
        for (long size : coldSizes) {
            if (size == 0) {
                continue;
            }
            for (String impl : distinct) {
                world.barrier();
                long t0 = System.nanoTime();
                HierarchicalBcast hb =
                        impl.equals("mpi") ? null : HierarchicalBcast.create(world, OsuBcast.options(cli, impl));
                double[] stamps = new double[COLD_CALLS + 1];
                stamps[0] = (System.nanoTime() - t0) / 1e3;
                world.barrier();
                t0 = System.nanoTime();
                for (int i = 1; i <= COLD_CALLS; i++) {
                    call(hb, buf, (int) size);
                    stamps[i] = (System.nanoTime() - t0) / 1e3;
                }
                if (hb != null) {
                    hb.close();
                }
                world.allReduce(stamps, stamps.length, MPI.DOUBLE, MPI.MAX);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("size", size);
                row.put("impl", impl);
                row.put("createMs", stamps[0] / 1e3);
                row.put("firstUs", stamps[1]);
                row.put("first10Us", stamps[10] / 10);
                row.put("first100Us", stamps[COLD_CALLS] / COLD_CALLS);
                rows.add(row);
                if (world.getRank() == 0) {
                    if (!printed) {
                        System.out.println("# first calls of a fresh instance: the slowest rank's time from a barrier;"
                                + " create, call 1, mean of calls 1-10, mean of calls 1-100");
                        System.out.printf(
                                Locale.ROOT,
                                "%-10s%22s%14s%14s%16s%17s%n",
                                "# Size",
                                "impl",
                                "create (ms)",
                                "first (us)",
                                "first 10 (us)",
                                "first 100 (us)");
                        printed = true;
                    }
                    System.out.printf(
                            Locale.ROOT,
                            "%-10d%22s%14.1f%14.2f%16.2f%17.2f%n",
                            size,
                            impl,
                            stamps[0] / 1e3,
                            stamps[1],
                            stamps[10] / 10,
                            stamps[COLD_CALLS] / COLD_CALLS);
                }
            }
        }
        return rows;
    }

    private void call(HierarchicalBcast hb, ByteBuffer buf, int size) throws MPIException {
        if (hb == null) {
            world.bcast(buf, size, MPI.BYTE, 0);
        } else {
            hb.bcast(buf, size, MPI.BYTE, 0);
        }
    }

    /** Seconds per call of one block, the slowest rank's. */
    private double block(HierarchicalBcast hb, ByteBuffer buf, int size) throws MPIException {
        world.barrier();
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            call(hb, buf, size);
        }
        double[] mine = {(System.nanoTime() - t0) / 1e9 / calls};
        world.allReduce(mine, 1, MPI.DOUBLE, MPI.MAX);
        return mine[0];
    }

    private void header(int twin) throws MPIException {
        System.out.printf(
                Locale.ROOT,
                "# hbcast user-style probe: %d ranks, %d warm-up calls, median of %d blocks of %d"
                        + " calls, a block's time the slowest rank's%n",
                world.getSize(),
                warmup,
                blocks,
                calls);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-10s", "# Size"));
        for (String impl : impls) {
            sb.append(String.format(Locale.ROOT, "%22s", impl + " (us)"));
        }
        for (int k = 1; k < impls.size(); k++) {
            sb.append(String.format(Locale.ROOT, "%" + ratioWidth(k) + "s", impls.get(0) + "/" + impls.get(k)));
        }
        if (twin > 0) {
            sb.append("   (A/A: column ")
                    .append(impls.get(0))
                    .append('/')
                    .append(impls.get(twin))
                    .append(')');
        }
        System.out.println(sb);
    }

    /** Width of ratio column {@code k}: its label and two spaces, at least 12. */
    private int ratioWidth(int k) {
        return Math.max(12, impls.get(0).length() + impls.get(k).length() + 3);
    }

    /** One line per implementation: its blocks' times a call in microseconds, first block first. */
    private void blocks(double[][] times) {
        for (int k = 0; k < impls.size(); k++) {
            StringBuilder sb =
                    new StringBuilder(String.format(Locale.ROOT, "#   %-20s blocks (us a call):", impls.get(k)));
            for (double t : times[k]) {
                sb.append(String.format(Locale.ROOT, " %.2f", t * 1e6));
            }
            System.out.println(sb);
        }
    }

    private void row(long size, double[] us, int twin) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-10d", size));
        for (double u : us) {
            sb.append(String.format(Locale.ROOT, "%22.2f", u));
        }
        for (int k = 1; k < us.length; k++) {
            sb.append(String.format(Locale.ROOT, "%" + ratioWidth(k) + ".3f", us[0] / us[k]));
        }
        System.out.println(sb);
    }
}
