package org.hbcast.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.BcastOptions.CountRule;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.BcastOptions.TreeShape;
import org.hbcast.HierarchicalBcast;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Broadcast latency in the manner of OSU Micro-Benchmarks' {@code osu_bcast}, same flags and
 * output, plus several implementations measured side by side in one run on the same buffers,
 * interleaved size by size, with a ratio column (native over each of ours) and CSV/JSON output.
 */
@Command(
        name = "osu_bcast",
        version = "hbcast OsuBcast: osu_bcast of OSU Micro-Benchmarks " + OsuBcast.OMB_VERSION
                + " (flags and output), Java",
        description = "OSU-style MPI broadcast latency, several implementations side by side.")
public final class OsuBcast implements Callable<Integer> {
    /** The OSU Micro-Benchmarks release whose osu_bcast flags, defaults and output this follows. */
    static final String OMB_VERSION = "v7.3";
    /** Above this many bytes OSU switches to the "large" iteration and warm-up counts. */
    static final long LARGE_MESSAGE_SIZE = 8192;

    static final long DEFAULT_MAX_SIZE = 1 << 20;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this help")
    boolean help;

    @Option(
            names = {"-v", "--version"},
            versionHelp = true,
            description = "print version info")
    boolean version;

    @Option(
            names = {"-m", "--message-size"},
            paramLabel = "[MIN:]MAX",
            description =
                    "message sizes in bytes, doubling from MIN to MAX: MAX, MIN:MAX, MIN: or :MAX (default 1:1048576)")
    String sizes = "1:" + DEFAULT_MAX_SIZE;

    @Option(
            names = {"-i", "--iterations"},
            paramLabel = "ITER",
            description = "iterations per size (default 1000, 100 above 8 KiB)")
    Integer iterations;

    @Option(
            names = {"-x", "--warmup"},
            paramLabel = "ITER",
            description = "warm-up iterations per size (default 100, 10 above 8 KiB)")
    Integer warmup;

    @Option(
            names = {"-f", "--full"},
            description = "full format: minimum and maximum latency and iterations too")
    boolean full;

    @Option(
            names = {"-c", "--validation"},
            description = "validate every received message; adds a Validation column (Pass/Fail)")
    boolean validate;

    @Option(
            names = {"-a", "--api"},
            paramLabel = "arrays|buffer",
            description = "message container: Java arrays or direct buffers (default buffer)")
    String container = "buffer";

    @Option(
            names = "-d",
            paramLabel = "host|cuda",
            description = "where the message lives: host memory or CUDA device memory (default host)")
    String memory = "host";

    @Option(
            names = {"-k", "--root-rank", "--root"},
            paramLabel = "RANK",
            description = "root rank (default 0)")
    int root;

    @Option(
            names = "--impl",
            split = ",",
            description =
                    "implementations: native, knomial, hierarchical (or hierarchical/ring, hierarchical/fanout), auto, each optionally with the leaders' schedule /knomial, /chain or /two-tree (e.g. hierarchical/ring/two-tree, knomial/chain) and a chunk (e.g. hierarchical/fanout/128K), staged (native through host memory, for -d cuda), each optionally with :root, :equal or :trusted for its count rule (HBCAST_COUNTS), e.g. auto:trusted (default native,hierarchical)")
    List<String> impls = List.of("native", "hierarchical");

    @Option(
            names = "--loop",
            paramLabel = "c|java",
            description = "how calls are timed: c, as osu_bcast (a barrier after each call, each call timed alone;"
                    + " default), or java, as OMB-J's OSUBcast (back to back, no barrier, one clock around the timed"
                    + " calls: a root may run ahead of its receivers by whole calls)")
    String loop = "c";

    @Option(
            names = "--repeat",
            description =
                    "measure each size this many times, implementations interleaved, and report the median (default 1)")
    int repeat = 1;

    @Option(
            names = "--memcpy",
            description = "also time a plain copy of each size on rank 0 (memcpy(us) column), for the copy bound")
    boolean memcpy;

    @Option(names = "--csv", description = "also write the results as CSV")
    Path csv;

    @Option(names = "--json", description = "also write the results as JSON")
    Path json;

    private Intracomm world;
    private int rank;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new OsuBcast(), args);
    }

    @Override
    public Integer call() throws Exception {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        CommandLine cli = new CommandLine(this);
        long[] range = sizesOption(cli, sizes);
        if (iterations != null && iterations < 1 || warmup != null && warmup < 0) {
            throw new CommandLine.ParameterException(
                    cli, "-i must be at least 1 and -x at least 0, not -i " + iterations + " -x " + warmup);
        }
        boolean arrays = switch (container) {
            case "arrays", "array" -> true;
            case "buffer", "buffers" -> false;
            default -> throw new CommandLine.ParameterException(cli, "-a takes arrays or buffer, not " + container);
        };
        if (root < 0 || root >= world.getSize()) {
            throw new CommandLine.ParameterException(
                    cli, "-k/--root-rank " + root + " is outside 0.." + (world.getSize() - 1));
        }
        if (repeat < 1) {
            throw new CommandLine.ParameterException(cli, "--repeat must be at least 1, not " + repeat);
        }
        if (!loop.equals("c") && !loop.equals("java")) {
            throw new CommandLine.ParameterException(cli, "--loop takes c or java, not " + loop);
        }
        List<HierarchicalBcast> instances = new ArrayList<>();
        for (String impl : impls) {
            instances.add(HierarchicalBcast.create(world, options(cli, impl)));
        }
        BenchBuffer buf = BenchBuffer.of(
                memory, arrays, (int) range[1], instances.get(0).topology().position());
        BenchBuffer copy = memcpy && rank == 0
                ? BenchBuffer.of(
                        memory,
                        arrays,
                        (int) range[1],
                        instances.get(0).topology().position())
                : null;
        if (rank == 0) {
            header(instances);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        boolean allValid = true;
        for (long size = range[0]; size <= range[1]; size *= 2) {
            int iters = iterations != null ? iterations : size > LARGE_MESSAGE_SIZE ? 100 : 1000;
            int warm = warmup != null ? warmup : size > LARGE_MESSAGE_SIZE ? 10 : 100;
            double[] avg = new double[impls.size()];
            double[] min = new double[impls.size()];
            double[] max = new double[impls.size()];
            double[][][] runs = new double[impls.size()][repeat][];
            double[] copies = new double[repeat];
            long errors = 0;
            for (int r = 0; r < repeat; r++) {
                for (int k = 0; k < impls.size(); k++) {
                    runs[k][r] = measure(instances.get(k), buf, (int) size, iters, r == 0 ? warm : 0);
                    errors += (long) runs[k][r][3];
                }
                if (memcpy) {
                    copies[r] = copyTime(buf, copy, (int) size, iters, r == 0 ? warm : 0);
                }
            }
            for (int k = 0; k < impls.size(); k++) {
                double[] median = medianByAverage(runs[k]);
                avg[k] = median[0];
                min[k] = median[1];
                max[k] = median[2];
            }
            Arrays.sort(copies);
            double copyUs = copies[repeat / 2];
            allValid &= errors == 0;
            if (rank == 0) {
                rows.add(row(size, iters, avg, min, max, copyUs, errors));
                printRow(size, iters, avg, min, max, copyUs, errors);
            }
        }
        for (HierarchicalBcast hb : instances) {
            hb.close();
        }
        buf.close();
        if (copy != null) {
            copy.close();
        }
        if (rank == 0) {
            write(
                    rows,
                    instances.get(0).topology().nodeSizes().stream()
                            .mapToInt(Integer::intValue)
                            .toArray());
        }
        return allValid ? 0 : 1;
    }

    /**
     * The options of implementation {@code impl}: {@code ALGORITHM[/INTRA][/INTER][/CHUNK][:COUNTS]}, e.g.
     * {@code hierarchical/ring/two-tree}, {@code knomial/chain} or {@code hierarchical/fanout/128K}.
     */
    static BcastOptions options(CommandLine cli, String impl) {
        String[] parts = impl.split(":", 2);
        try {
            // Native on device buffers is the staged baseline: device to host, library bcast, host to device.
            String[] plan = parts[0].split("/", 4);
            Algorithm algorithm = plan[0].equals("staged") ? Algorithm.NATIVE : Algorithm.parse(plan[0]);
            BcastOptions options = BcastOptions.defaults().withAlgorithm(algorithm);
            for (int i = 1; i < plan.length; i++) {
                // Each further part names the level inside nodes (ring, fanout), the leaders' schedule
                // or, starting with a digit, the chunk (as HBCAST_CHUNK_BYTES, for one implementation).
                if (!plan[i].isEmpty() && Character.isDigit(plan[i].charAt(0))) {
                    options = options.withChunkBytes((int) Math.min(ByteSizes.parse(plan[i]), Integer.MAX_VALUE));
                } else {
                    options = isTreeShape(plan[i])
                            ? options.withInter(TreeShape.parse("--impl " + impl, plan[i]))
                            : options.withIntra(IntraNode.parse("--impl " + impl, plan[i]));
                }
            }
            return parts.length == 1 ? options : options.withCounts(CountRule.parse("--impl " + impl, parts[1]));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cli, "--impl " + impl + ": " + e.getMessage());
        }
    }

    /**
     * Average, minimum and maximum over ranks of each rank's mean latency, in microseconds, and the
     * number of corrupted bytes seen by all ranks together (with {@code -c}; 0 otherwise).
     */
    private double[] measure(HierarchicalBcast hb, BenchBuffer buf, int size, int iters, int warm) throws MPIException {
        long total = 0;
        long bad = 0;
        boolean backToBack = loop.equals("java");
        if (backToBack) {
            // OMB-J's OSUBcast: the clock starts at the first timed call and stops after the last, no
            // barrier in between; the sizes are separated by a barrier, as there.
            world.barrier();
            long start = 0;
            for (int i = -warm; i < iters; i++) {
                if (i == 0) {
                    start = System.nanoTime();
                }
                if (validate && rank == root) {
                    buf.fill(size, i);
                }
                buf.bcast(hb, size, root);
                if (validate && rank != root) {
                    bad += buf.mismatches(size, i);
                }
            }
            total = System.nanoTime() - start;
        }
        for (int i = backToBack ? iters : -warm; i < iters; i++) {
            if (validate && rank == root) {
                buf.fill(size, i);
            }
            world.barrier();
            long t0 = System.nanoTime();
            buf.bcast(hb, size, root);
            long t1 = System.nanoTime();
            if (i >= 0) {
                total += t1 - t0;
            }
            if (validate && rank != root) {
                bad += buf.mismatches(size, i);
            }
        }
        double mine = total / 1e3 / iters;
        double[] sum = {mine};
        double[] lo = {mine};
        double[] hi = {mine};
        long[] errors = {bad};
        world.reduce(new double[] {mine}, sum, 1, MPI.DOUBLE, MPI.SUM, 0);
        world.reduce(new double[] {mine}, lo, 1, MPI.DOUBLE, MPI.MIN, 0);
        world.reduce(new double[] {mine}, hi, 1, MPI.DOUBLE, MPI.MAX, 0);
        world.allReduce(errors, 1, MPI.LONG, MPI.SUM);
        return new double[] {sum[0] / world.getSize(), lo[0], hi[0], errors[0]};
    }

    /**
     * Rank 0's mean time, in microseconds, to copy {@code size} bytes between two buffers of the
     * benchmark's kind while the other ranks wait: the memcpy bandwidth the copy bound is made of.
     */
    private double copyTime(BenchBuffer src, BenchBuffer dst, int size, int iters, int warm) throws MPIException {
        double us = 0;
        if (rank == 0) {
            long total = 0;
            for (int i = -warm; i < iters; i++) {
                long t0 = System.nanoTime();
                src.copyInto(dst, size);
                long t1 = System.nanoTime();
                if (i >= 0) {
                    total += t1 - t0;
                }
            }
            us = total / 1e3 / iters;
        }
        world.barrier();
        return us;
    }

    /** The run whose average latency is the median of the repeats. */
    private static double[] medianByAverage(double[][] runs) {
        double[][] sorted = runs.clone();
        Arrays.sort(sorted, Comparator.comparingDouble(r -> r[0]));
        return sorted[sorted.length / 2];
    }

    private static boolean isTreeShape(String part) {
        for (TreeShape shape : TreeShape.values()) {
            if (shape.toString().equals(part.strip().toLowerCase(java.util.Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    /** OSU's header lines; the column row is OSU's exactly when one implementation is measured. */
    private void header(List<HierarchicalBcast> instances) throws MPIException {
        System.out.println("# OSU MPI Broadcast Latency Test " + OMB_VERSION);
        System.out.println("# Datatype: MPI_BYTE.");
        System.out.println(
                "# hbcast OsuBcast (Java): container " + container + ", memory " + memory + ", " + world.getSize()
                        + " ranks, ranks per node "
                        + instances.get(0).topology().nodeSizes() + ", root " + root
                        + (repeat > 1 ? ", median of " + repeat + " interleaved runs" : "")
                        + (loop.equals("java")
                                ? ", OMB-J's loop (back to back, no barrier)"
                                : ", osu_bcast's loop (a barrier after each call)"));
        StringBuilder sb = new StringBuilder(String.format("%-10s", "# Size"));
        boolean single = impls.size() == 1;
        for (String impl : impls) {
            sb.append(String.format("%" + width(impl) + "s", single ? "Avg Latency(us)" : impl + " Avg(us)"));
            if (full) {
                sb.append(String.format("%18s%18s", "Min Latency(us)", "Max Latency(us)"));
            }
        }
        for (int k = 1; k < impls.size(); k++) {
            sb.append(String.format("%" + ratioWidth(k) + "s", ratioLabel(k)));
        }
        if (full) {
            sb.append(String.format("%12s", "Iterations"));
        }
        if (memcpy) {
            sb.append(String.format("%18s", "memcpy(us)"));
        }
        if (validate) {
            sb.append(String.format("%18s", "Validation"));
        }
        System.out.println(sb);
    }

    /** OSU's FIELD_WIDTH (18), wider where an implementation's name needs it. */
    private int width(String impl) {
        return impls.size() == 1 ? 18 : Math.max(18, impl.length() + " Avg(us)".length() + 2);
    }

    private String ratioLabel(int k) {
        return impls.get(0) + "/" + impls.get(k);
    }

    private int ratioWidth(int k) {
        return Math.max(18, ratioLabel(k).length() + 2);
    }

    private void printRow(long size, int iters, double[] avg, double[] min, double[] max, double copyUs, long errors) {
        StringBuilder sb = new StringBuilder(String.format("%-10d", size));
        for (int k = 0; k < avg.length; k++) {
            sb.append(String.format(Locale.ROOT, "%" + width(impls.get(k)) + ".2f", avg[k]));
            if (full) {
                sb.append(String.format(Locale.ROOT, "%18.2f%18.2f", min[k], max[k]));
            }
        }
        for (int k = 1; k < avg.length; k++) {
            sb.append(String.format(Locale.ROOT, "%" + ratioWidth(k) + ".2f", avg[0] / avg[k]));
        }
        if (full) {
            sb.append(String.format("%12d", iters));
        }
        if (memcpy) {
            sb.append(String.format(Locale.ROOT, "%18.2f", copyUs));
        }
        if (validate) {
            sb.append(String.format("%18s", errors == 0 ? "Pass" : "Fail"));
        }
        System.out.println(sb);
        System.out.flush();
    }

    private Map<String, Object> row(
            long size, int iters, double[] avg, double[] min, double[] max, double copyUs, long errors) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("size", size);
        row.put("iterations", iters);
        for (int k = 0; k < avg.length; k++) {
            row.put(impls.get(k) + "_avg_us", avg[k]);
            row.put(impls.get(k) + "_min_us", min[k]);
            row.put(impls.get(k) + "_max_us", max[k]);
        }
        if (memcpy) {
            row.put("memcpy_us", copyUs);
        }
        if (validate) {
            row.put("validation", errors == 0 ? "Pass" : "Fail");
        }
        return row;
    }

    private void write(List<Map<String, Object>> rows, int[] nodeSizes) throws Exception {
        if (json != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("benchmark", "osu_bcast " + OMB_VERSION);
            doc.put("ranks", world.getSize());
            doc.put("nodes", nodeSizes);
            doc.put("container", container);
            doc.put("memory", memory);
            doc.put("root", root);
            doc.put("repeat", repeat);
            doc.put("loop", loop);
            doc.put("impls", impls);
            doc.put("rows", rows);
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), doc);
        }
        if (csv != null && !rows.isEmpty()) {
            try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(csv))) {
                out.println(String.join(",", rows.get(0).keySet()));
                for (Map<String, Object> row : rows) {
                    List<String> cells = new ArrayList<>();
                    row.values().forEach(v -> cells.add(String.valueOf(v)));
                    out.println(String.join(",", cells));
                }
            }
        }
    }

    /** {@link #parseSizes}, a bad {@code -m} reported as picocli reports a bad option of {@code cli}'s. */
    static long[] sizesOption(CommandLine cli, String spec) {
        try {
            return parseSizes(spec);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cli, e.getMessage());
        }
    }

    /**
     * {@code -m} as osu_bcast reads it: {@code MAX}, {@code MIN:MAX}, {@code MIN:} (up to the default
     * 1 MiB) or {@code :MAX} (from 1); MIN at least 1, MAX at least MIN and below 2 GiB.
     */
    public static long[] parseSizes(String spec) {
        String bad = "-m takes MAX, MIN:MAX, MIN: or :MAX in bytes (1 <= MIN <= MAX < 2^31), not '" + spec + "'";
        int colon = spec.indexOf(':');
        if (spec.isEmpty() || colon != spec.lastIndexOf(':') || spec.equals(":")) {
            throw new IllegalArgumentException(bad);
        }
        try {
            String lo = colon < 0 ? "" : spec.substring(0, colon);
            String hi = colon < 0 ? spec : spec.substring(colon + 1);
            long min = lo.isEmpty() ? 1 : Long.parseLong(lo);
            long max = hi.isEmpty() ? DEFAULT_MAX_SIZE : Long.parseLong(hi);
            if (min < 1 || max < min || max > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(bad);
            }
            return new long[] {min, max};
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(bad, e);
        }
    }
}
