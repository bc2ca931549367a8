package org.hbcast.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
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
import org.hbcast.Algorithm;
import org.hbcast.BcastOptions;
import org.hbcast.HierarchicalBcast;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * Broadcast latency in the manner of OSU Micro-Benchmarks' {@code osu_bcast}, same flags and
 * output, plus several implementations measured side by side in one run on the same buffers,
 * interleaved size by size, with a ratio column (native over each of ours) and CSV/JSON output.
 */
@Command(name = "osu_bcast", mixinStandardHelpOptions = true,
        description = "OSU-style MPI broadcast latency, several implementations side by side.")
public final class OsuBcast implements Callable<Integer> {
    @Option(names = "-m", paramLabel = "MIN:MAX", description = "message sizes in bytes, powers of two (default 1:1048576)")
    String sizes = "1:1048576";

    @Option(names = "-i", description = "iterations per size (default 1000, 100 above 8 KiB)")
    Integer iterations;

    @Option(names = "-x", description = "warm-up iterations per size (default 200, 10 above 8 KiB)")
    Integer warmup;

    @Option(names = "-f", description = "full format: average, minimum and maximum latency and iterations")
    boolean full;

    @Option(names = "-c", description = "validate every received message")
    boolean validate;

    @Option(names = "-a", paramLabel = "arrays|buffer", description = "message container: Java arrays or direct buffers (default buffer)")
    String container = "buffer";

    @Option(names = "--root", description = "root rank (default 0)")
    int root;

    @Option(names = "--impl", split = ",", description = "implementations: native, knomial, hierarchical, auto (default native,hierarchical)")
    List<String> impls = List.of("native", "hierarchical");

    @Option(names = "--repeat", description = "measure each size this many times, implementations interleaved, and report the median (default 1)")
    int repeat = 1;

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
        long[] range = parseSizes(sizes);
        boolean arrays = switch (container) {
            case "arrays", "array" -> true;
            case "buffer", "buffers" -> false;
            default -> throw new CommandLine.ParameterException(new CommandLine(this), "-a takes arrays or buffer, not " + container);
        };
        if (root < 0 || root >= world.getSize()) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--root " + root + " is outside 0.."
                    + (world.getSize() - 1));
        }
        if (repeat < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--repeat must be at least 1, not " + repeat);
        }
        List<HierarchicalBcast> instances = new ArrayList<>();
        for (String impl : impls) {
            instances.add(HierarchicalBcast.create(world, BcastOptions.defaults().withAlgorithm(Algorithm.parse(impl))));
        }
        Object buf = arrays ? new byte[(int) range[1]] : ByteBuffer.allocateDirect((int) range[1]);
        if (rank == 0) {
            header(instances);
        }
        List<Map<String, Object>> rows = new ArrayList<>();
        for (long size = range[0]; size <= range[1]; size *= 2) {
            int iters = iterations != null ? iterations : size > 8192 ? 100 : 1000;
            int warm = warmup != null ? warmup : size > 8192 ? 10 : 200;
            double[] avg = new double[impls.size()];
            double[] min = new double[impls.size()];
            double[] max = new double[impls.size()];
            double[][][] runs = new double[impls.size()][repeat][];
            for (int r = 0; r < repeat; r++) {
                for (int k = 0; k < impls.size(); k++) {
                    runs[k][r] = measure(instances.get(k), buf, (int) size, iters, r == 0 ? warm : 0);
                }
            }
            for (int k = 0; k < impls.size(); k++) {
                double[] median = medianByAverage(runs[k]);
                avg[k] = median[0];
                min[k] = median[1];
                max[k] = median[2];
            }
            if (rank == 0) {
                rows.add(row(size, iters, avg, min, max));
                printRow(size, iters, avg, min, max);
            }
            if (size == 0) {
                break;
            }
        }
        for (HierarchicalBcast hb : instances) {
            hb.close();
        }
        if (rank == 0) {
            write(rows);
        }
        return 0;
    }

    /** Average, minimum and maximum over ranks of each rank's mean latency, in microseconds. */
    private double[] measure(HierarchicalBcast hb, Object buf, int size, int iters, int warm) throws MPIException {
        long total = 0;
        for (int i = -warm; i < iters; i++) {
            if (validate && rank == root) {
                fill(buf, size, i);
            }
            world.barrier();
            long t0 = System.nanoTime();
            hb.bcast(buf, size, MPI.BYTE, root);
            long t1 = System.nanoTime();
            if (i >= 0) {
                total += t1 - t0;
            }
            if (validate && rank != root) {
                check(buf, size, i);
            }
        }
        double mine = total / 1e3 / iters;
        double[] sum = {mine};
        double[] lo = {mine};
        double[] hi = {mine};
        world.reduce(new double[] {mine}, sum, 1, MPI.DOUBLE, MPI.SUM, 0);
        world.reduce(new double[] {mine}, lo, 1, MPI.DOUBLE, MPI.MIN, 0);
        world.reduce(new double[] {mine}, hi, 1, MPI.DOUBLE, MPI.MAX, 0);
        return new double[] {sum[0] / world.getSize(), lo[0], hi[0]};
    }

    /** The run whose average latency is the median of the repeats. */
    private static double[] medianByAverage(double[][] runs) {
        double[][] sorted = runs.clone();
        Arrays.sort(sorted, Comparator.comparingDouble(r -> r[0]));
        return sorted[sorted.length / 2];
    }

    private static byte pattern(int i, int iteration) {
        return (byte) (i * 31 + iteration * 7 + 1);
    }

    private static void fill(Object buf, int size, int iteration) {
        for (int i = 0; i < size; i++) {
            if (buf instanceof byte[] a) {
                a[i] = pattern(i, iteration);
            } else {
                ((ByteBuffer) buf).put(i, pattern(i, iteration));
            }
        }
    }

    private void check(Object buf, int size, int iteration) {
        for (int i = 0; i < size; i++) {
            byte got = buf instanceof byte[] a ? a[i] : ((ByteBuffer) buf).get(i);
            if (got != pattern(i, iteration)) {
                throw new IllegalStateException("validation failed on rank " + rank + ": size " + size + ", byte " + i);
            }
        }
    }

    private void header(List<HierarchicalBcast> instances) throws MPIException {
        System.out.println("# OSU MPI Broadcast Latency Test (hbcast, Java)");
        System.out.println("# Datatype: MPI_BYTE. Container: " + container + ". Ranks: " + world.getSize()
                + ". Nodes: " + instances.get(0).topology().layout()
                + (repeat > 1 ? ". Median of " + repeat + " interleaved runs." : "."));
        StringBuilder sb = new StringBuilder(String.format("%-10s", "# Size"));
        for (String impl : impls) {
            sb.append(String.format("%24s", impl + " Avg(us)"));
            if (full) {
                sb.append(String.format("%14s%14s", "Min(us)", "Max(us)"));
            }
        }
        for (int k = 1; k < impls.size(); k++) {
            sb.append(String.format("%26s", impls.get(0) + "/" + impls.get(k)));
        }
        if (full) {
            sb.append(String.format("%12s", "Iterations"));
        }
        System.out.println(sb);
    }

    private void printRow(long size, int iters, double[] avg, double[] min, double[] max) {
        StringBuilder sb = new StringBuilder(String.format("%-10d", size));
        for (int k = 0; k < avg.length; k++) {
            sb.append(String.format(Locale.ROOT, "%24.2f", avg[k]));
            if (full) {
                sb.append(String.format(Locale.ROOT, "%14.2f%14.2f", min[k], max[k]));
            }
        }
        for (int k = 1; k < avg.length; k++) {
            sb.append(String.format(Locale.ROOT, "%26.2f", avg[0] / avg[k]));
        }
        if (full) {
            sb.append(String.format("%12d", iters));
        }
        System.out.println(sb);
        System.out.flush();
    }

    private Map<String, Object> row(long size, int iters, double[] avg, double[] min, double[] max) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("size", size);
        row.put("iterations", iters);
        for (int k = 0; k < avg.length; k++) {
            row.put(impls.get(k) + "_avg_us", avg[k]);
            row.put(impls.get(k) + "_min_us", min[k]);
            row.put(impls.get(k) + "_max_us", max[k]);
        }
        return row;
    }

    private void write(List<Map<String, Object>> rows) throws Exception {
        if (json != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("ranks", world.getSize());
            doc.put("container", container);
            doc.put("root", root);
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

    static long[] parseSizes(String spec) {
        String[] parts = spec.split(":");
        try {
            long min = parts.length == 2 ? Long.parseLong(parts[0]) : 1;
            long max = Long.parseLong(parts[parts.length - 1]);
            if (parts.length > 2 || min < 0 || max < Math.max(min, 1) || max > Integer.MAX_VALUE) {
                throw new IllegalArgumentException();
            }
            return new long[] {Math.max(min, 1), max};
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("-m takes MIN:MAX or MAX in bytes (1 to 2^31-1), not '" + spec + "'");
        }
    }
}
