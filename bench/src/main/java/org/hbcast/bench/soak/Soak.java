package org.hbcast.bench.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.HierarchicalBcast;
import org.hbcast.bench.MpiCommand;
import org.hbcast.mpi.StringExchange;
import org.hbcast.plan.Algorithm;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Soak test: thousands of broadcasts with random sizes (0 to 64 MiB), roots, datatypes, memory
 * kinds and algorithms, every byte checked on every receiver (guard zone included), with the
 * process's memory measured after warm-up and at the end. Every rank draws the same calls from the
 * seed, so they agree without talking; rank 0 alone decides when time is up.
 *
 * <p>Exit status: 0 when every call was right and memory stayed flat, 1 on a wrong or failed call,
 * 3 when memory grew.
 */
@Command(
        name = "soak",
        mixinStandardHelpOptions = true,
        description = "Random broadcasts verified byte by byte, with memory measured after warm-up and at the end.")
public final class Soak implements Callable<Integer> {
    /** Start of the one-line summary that tests parse. */
    public static final String RESULT = "SOAK-RESULT";

    private static final int SHOWN_ERRORS = 5;
    private static final int ERROR_RECORD_BYTES = 4096;
    private static final long MIB = 1 << 20;

    @Option(
            names = "--duration",
            description = "how long to run after warm-up, e.g. 600s, 10m, 1h (default 60s; ignored with --calls)")
    String duration = "60s";

    @Option(names = "--calls", description = "run this many calls after warm-up instead of a duration")
    Long calls;

    @Option(names = "--max-bytes", description = "largest message, e.g. 64M (default 64M)")
    String maxBytes = "64M";

    @Option(names = "--seed", description = "seed of the random calls (default 1)")
    long seed = 1;

    @Option(
            names = "--kinds",
            split = ",",
            description = "memory kinds: arrays, buffers, views, device (default arrays,buffers,views)")
    List<String> kinds = List.of("arrays", "buffers", "views");

    @Option(
            names = "--algorithms",
            split = ",",
            description = "algorithms mixed: auto, hierarchical, knomial, native (default all four)")
    List<String> algorithms = List.of("auto", "hierarchical", "knomial", "native");

    @Option(
            names = "--warmup",
            description = "random calls after the largest ones before memory is first measured (default 100)")
    int warmup = 100;

    @Option(names = "--rss-tolerance", description = "resident-set growth still called flat, e.g. 64M (default 64M)")
    String rssTolerance = "64M";

    @Option(names = "--no-progress", description = "no progress bar on stderr")
    boolean noProgress;

    private Intracomm world;
    private int rank;
    private int ranks;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new Soak(), args);
    }

    @Override
    public Integer call() throws Exception {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        ranks = world.getSize();
        int max = (int) Math.min(parseBytes("--max-bytes", maxBytes), Integer.MAX_VALUE - 2L * Pattern.GUARD_BYTES);
        long tolerance = parseBytes("--rss-tolerance", rssTolerance);
        long seconds = parseDuration(duration);
        if (warmup < 0 || calls != null && calls < 0) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--warmup and --calls must not be negative");
        }
        List<SoakKind> kindList = kinds.stream().map(SoakKind::parse).distinct().toList();
        List<Algorithm> algorithmList =
                algorithms.stream().map(Algorithm::parse).distinct().toList();
        Map<SoakKind, SoakMemory> memory = new EnumMap<>(SoakKind.class);
        Map<Algorithm, HierarchicalBcast> instances = new EnumMap<>(Algorithm.class);
        Tally tally = new Tally();
        try {
            for (SoakKind k : kindList) {
                memory.put(k, k.open(max));
            }
            for (Algorithm a : algorithmList) {
                instances.put(
                        a,
                        HierarchicalBcast.create(world, BcastOptions.defaults().withAlgorithm(a)));
            }
            if (rank == 0) {
                HierarchicalBcast any = instances.values().iterator().next();
                System.out.printf(
                        Locale.ROOT,
                        "soak: %d ranks on %d nodes %s, seed %d, kinds %s, algorithms %s, max %s," + " timeout %s%n",
                        ranks,
                        any.topology().layout().nodeCount(),
                        any.topology().layout(),
                        seed,
                        kindList,
                        algorithmList,
                        bytes(max),
                        any.options().timeout());
                System.out.println("device: " + SoakKind.deviceStatus());
            }
            long number = 0;
            for (SoakKind k : kindList) {
                for (Algorithm a : algorithmList) {
                    tally.warmupCalls++;
                    if (!run(SoakCall.largest(number++, k, a, max, ranks), memory, instances, tally)) {
                        break;
                    }
                }
            }
            for (int i = 0; i < warmup && !tally.failed; i++, number++) {
                tally.warmupCalls++;
                run(SoakCall.draw(seed, number, kindList, algorithmList, max, ranks), memory, instances, tally);
            }
            MemoryProbe start = MemoryProbe.measure();
            List<String> startDescriptors = MemoryProbe.descriptors();
            long begin = System.nanoTime();
            long deadline = begin + Duration.ofSeconds(seconds).toNanos();
            int[] stop = new int[1];
            try (ProgressBar bar = progressBar(seconds)) {
                while (true) {
                    boolean over = calls != null ? tally.calls >= calls : System.nanoTime() >= deadline;
                    stop[0] = tally.failed || rank == 0 && over ? 1 : 0;
                    world.allReduce(stop, 1, MPI.INT, MPI.MAX);
                    if (stop[0] != 0) {
                        break;
                    }
                    tally.calls++;
                    run(SoakCall.draw(seed, number++, kindList, algorithmList, max, ranks), memory, instances, tally);
                    if (bar != null) {
                        bar.stepTo(calls != null ? tally.calls : (System.nanoTime() - begin) / 1_000_000_000L);
                        bar.setExtraMessage(String.format(
                                Locale.ROOT,
                                " %d calls, %s, %d errors",
                                tally.calls,
                                bytes(tally.bytes),
                                tally.errors));
                    }
                }
            }
            double elapsed = (System.nanoTime() - begin) / 1e9;
            MemoryProbe end = MemoryProbe.measure();
            if (end.openFiles() > start.openFiles()) {
                System.out.println("rank " + rank + ": descriptors opened during the soak and still open: "
                        + MemoryProbe.added(startDescriptors, MemoryProbe.descriptors()));
            }
            return report(tally, start, end, elapsed, tolerance);
        } finally {
            for (HierarchicalBcast hb : instances.values()) {
                try {
                    hb.close();
                } catch (MPIException e) {
                    System.err.println("rank " + rank + ": close failed: " + e.getMessage());
                }
            }
            memory.values().forEach(SoakMemory::close);
        }
    }

    /** One call: prepare, broadcast, verify. False once the instances are unusable. */
    private boolean run(
            SoakCall c, Map<SoakKind, SoakMemory> memory, Map<Algorithm, HierarchicalBcast> instances, Tally tally) {
        SoakMemory mem = memory.get(c.kind());
        long key = Pattern.key(seed, c.number());
        boolean root = rank == c.root();
        try {
            Object container = mem.prepare(c.type(), c.count(), key, root);
            instances.get(c.algorithm()).bcast(container, c.count(), c.type().datatype(), c.root());
        } catch (MPIException | RuntimeException e) {
            tally.error(c + ": " + e.getMessage());
            tally.failed = true;
            return false;
        }
        String problem = mem.verify(c.type(), c.count(), key);
        if (problem != null) {
            tally.error(c + ": " + problem);
        }
        tally.bytes += c.bytes();
        return true;
    }

    private ProgressBar progressBar(long seconds) {
        if (rank != 0 || noProgress) {
            return null;
        }
        return new ProgressBarBuilder()
                .setTaskName("soak")
                .setInitialMax(calls != null ? calls : seconds)
                .setUnit(calls != null ? " calls" : " s", 1)
                .setUpdateIntervalMillis(1000)
                .setConsumer(new ConsoleProgressBarConsumer(System.err))
                .build();
    }

    private int report(Tally tally, MemoryProbe start, MemoryProbe end, double elapsed, long tolerance)
            throws MPIException {
        long[] totals = {tally.errors, tally.failed ? 1 : 0};
        world.allReduce(totals, totals.length, MPI.LONG, MPI.SUM);
        int f = MemoryProbe.FIELDS;
        long[] mem = new long[3 * f];
        System.arraycopy(start.toArray(), 0, mem, 0, f);
        System.arraycopy(end.toArray(), 0, mem, f, f);
        for (int i = 0; i < f; i++) {
            mem[2 * f + i] = mem[f + i] - mem[i];
        }
        world.allReduce(mem, mem.length, MPI.LONG, MPI.MAX);
        String[] firstErrors = StringExchange.allGather(world, truncate(tally.first()), ERROR_RECORD_BYTES);
        MemoryProbe s = MemoryProbe.of(mem, 0);
        MemoryProbe e = MemoryProbe.of(mem, f);
        MemoryProbe growth = MemoryProbe.of(mem, 2 * f);
        boolean flat = growth.rssBytes() <= tolerance
                && growth.heapBytes() <= 16 * MIB
                && growth.directBytes() <= MIB
                && growth.openFiles() <= 0;
        if (rank == 0) {
            System.out.printf(
                    Locale.ROOT,
                    "calls: %d after warm-up (%d warm-up calls) in %.1f s, bytes moved: %s (%d)," + " errors: %d%s%n",
                    tally.calls,
                    tally.warmupCalls,
                    elapsed,
                    bytes(tally.bytes),
                    tally.bytes,
                    totals[0],
                    totals[1] > 0 ? " (stopped early: a call failed)" : "");
            System.out.println("memory, max over ranks    after warm-up        at end   growth (max per rank)");
            row("resident set (VmRSS)", s.rssBytes(), e.rssBytes(), growth.rssBytes(), true);
            row("heap used after GC", s.heapBytes(), e.heapBytes(), growth.heapBytes(), true);
            row("direct buffers", s.directBytes(), e.directBytes(), growth.directBytes(), true);
            row("open files", s.openFiles(), e.openFiles(), growth.openFiles(), false);
            System.out.printf(
                    Locale.ROOT,
                    "memory %s: resident set grew at most %s (tolerance %s), heap %s, direct %s," + " files %+d%n",
                    flat ? "flat" : "GREW",
                    bytes(growth.rssBytes()),
                    bytes(tolerance),
                    bytes(growth.heapBytes()),
                    bytes(growth.directBytes()),
                    growth.openFiles());
            int shown = 0;
            for (int r = 0; r < firstErrors.length && shown < SHOWN_ERRORS; r++) {
                if (!firstErrors[r].isEmpty()) {
                    System.out.println("error on rank " + r + ": " + firstErrors[r]);
                    shown++;
                }
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s calls=%d bytes=%d errors=%d rss_start=%d rss_end=%d heap_start=%d" + " heap_end=%d memory=%s%n",
                    RESULT,
                    tally.calls,
                    tally.bytes,
                    totals[0],
                    s.rssBytes(),
                    e.rssBytes(),
                    s.heapBytes(),
                    e.heapBytes(),
                    flat ? "flat" : "grew");
            System.out.flush();
        }
        return totals[0] > 0 ? 1 : flat ? 0 : 3;
    }

    private static void row(String what, long start, long end, long growth, boolean isBytes) {
        System.out.printf(
                Locale.ROOT,
                "  %-22s %14s %14s %14s%n",
                what,
                isBytes ? bytes(start) : Long.toString(start),
                isBytes ? bytes(end) : Long.toString(end),
                isBytes ? bytes(growth) : String.format("%+d", growth));
    }

    private static String truncate(String s) {
        byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return b.length <= ERROR_RECORD_BYTES ? s : s.substring(0, ERROR_RECORD_BYTES / 4);
    }

    static String bytes(long b) {
        double a = Math.abs(b);
        if (a >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB", b / (double) (1L << 30));
        } else if (a >= MIB) {
            return String.format(Locale.ROOT, "%.1f MiB", b / (double) MIB);
        } else if (a >= 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", b / 1024.0);
        }
        return b + " B";
    }

    /** Bytes with an optional binary unit: 65536, 64K, 64M, 1G. */
    static long parseBytes(String option, String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        if (t.endsWith("K") || t.endsWith("M") || t.endsWith("G")) {
            unit = t.endsWith("K") ? 1024 : t.endsWith("M") ? MIB : 1L << 30;
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t);
            if (v < 1 || v > (Long.MAX_VALUE >> 31)) {
                throw new NumberFormatException();
            }
            return v * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    option + " takes a positive size like 65536, 64K or 64M, not '" + text + "'");
        }
    }

    /** Seconds from 90, 90s, 10m or 1h. */
    static long parseDuration(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        long unit = t.endsWith("h") ? 3600 : t.endsWith("m") ? 60 : 1;
        if (t.endsWith("h") || t.endsWith("m") || t.endsWith("s")) {
            t = t.substring(0, t.length() - 1);
        }
        try {
            long v = Long.parseLong(t);
            if (v < 0 || v > 366L * 24 * 3600) {
                throw new NumberFormatException();
            }
            return v * unit;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--duration takes a time like 600, 600s, 10m or 1h, not '" + text + "'");
        }
    }
    /** Counts of one rank; the first few errors kept for the report. */
    private static final class Tally {
        long calls;
        long warmupCalls;
        long bytes;
        long errors;
        boolean failed;
        private final List<String> first = new ArrayList<>();

        void error(String what) {
            errors++;
            if (first.size() < 2) {
                first.add(what);
            }
            System.err.println("soak error: " + what);
        }

        String first() {
            return String.join(" | ", first);
        }
    }
}
