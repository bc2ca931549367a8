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
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.HierarchicalBcast;
import org.hbcast.bench.MpiCommand;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.mpi.port.MpiFailure;
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

    /** Start of the one-line summary of each plan under {@code --plans}, which tests parse. */
    public static final String PLAN_RESULT = "SOAK-PLAN";

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
            names = "--plans",
            split = ",",
            description = "run one segment per plan, in turn, each for --duration (or --calls) after its own"
                    + " warm-up, instead of mixing --algorithms: 'all', or plans like native, auto,"
                    + " knomial:chain, hierarchical:fanout:two-tree:64K (algorithm[:ring|fanout][:knomial|chain"
                    + "|two-tree][:chunk])")
    List<String> plans;

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
        List<SoakPlan> planList = plans == null ? null : SoakPlan.parseList(plans);
        Map<SoakKind, SoakMemory> memory = new EnumMap<>(SoakKind.class);
        try {
            for (SoakKind k : kindList) {
                memory.put(k, k.open(max));
            }
            if (planList == null) {
                Map<Algorithm, BcastOptions> mixed = new EnumMap<>(Algorithm.class);
                for (String a : algorithms) {
                    Algorithm algorithm = Algorithm.parse(a);
                    mixed.put(algorithm, BcastOptions.defaults().withAlgorithm(algorithm));
                }
                Segment one = segment("mixed", mixed, kindList, memory, max, seconds, true);
                return report(one, tolerance);
            }
            if (rank == 0) {
                System.out.println("soak: " + planList.size() + " plans in turn, "
                        + (calls != null ? calls + " calls" : seconds + " s") + " each after its warm-up: " + planList);
            }
            List<Segment> done = new ArrayList<>();
            int status = 0;
            for (SoakPlan plan : planList) {
                Segment seg = segment(
                        plan.toString(),
                        Map.of(plan.algorithm(), plan.options()),
                        kindList,
                        memory,
                        max,
                        seconds,
                        done.isEmpty());
                done.add(seg);
                status = Math.max(status, report(seg, tolerance));
            }
            if (rank == 0) {
                planTable(done, tolerance);
            }
            // 1 (wrong or failed calls) outranks 3 (memory grew): a plan that failed matters most.
            return done.stream().anyMatch(d -> d.errors + d.failures > 0) ? 1 : status;
        } finally {
            memory.values().forEach(SoakMemory::close);
        }
    }

    /**
     * One segment: instances made with {@code options} (one per algorithm drawn from), the largest call
     * of every kind and algorithm, the warm-up, memory, calls until time is up, memory again, the
     * instances closed. Every segment draws the same calls from call 0, so plans see the same sizes,
     * roots and datatypes (as far as each gets in its time). A failed call ends the segment on every
     * rank: its instances are broken, the next segment makes new ones.
     */
    private Segment segment(
            String label,
            Map<Algorithm, BcastOptions> options,
            List<SoakKind> kindList,
            Map<SoakKind, SoakMemory> memory,
            int max,
            long seconds,
            boolean header)
            throws MPIException {
        List<Algorithm> algorithmList = List.copyOf(options.keySet());
        Map<Algorithm, HierarchicalBcast> instances = new EnumMap<>(Algorithm.class);
        Tally tally = new Tally();
        try {
            for (Map.Entry<Algorithm, BcastOptions> e : options.entrySet()) {
                instances.put(e.getKey(), HierarchicalBcast.create(world, e.getValue()));
            }
            if (rank == 0 && header) {
                HierarchicalBcast any = instances.values().iterator().next();
                System.out.printf(
                        Locale.ROOT,
                        "soak: %d ranks on %d nodes %s, seed %d, kinds %s, algorithms %s, max %s," + " timeout %s%n",
                        ranks,
                        any.topology().nodeCount(),
                        any.topology(),
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
            try (ProgressBar bar = progressBar(label, seconds)) {
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
                System.out.println("rank " + rank + " (" + label + "): descriptors opened during the soak and still"
                        + " open: " + MemoryProbe.added(startDescriptors, MemoryProbe.descriptors()));
            }
            return new Segment(label, tally, start, end, elapsed);
        } finally {
            for (HierarchicalBcast hb : instances.values()) {
                try {
                    hb.close();
                } catch (MPIException e) {
                    System.err.println("rank " + rank + ": close failed (" + label + "): " + e.getMessage());
                }
            }
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
            instances
                    .get(c.algorithm())
                    .bcast(container, c.count(), OpenMpi.datatype(c.type().basicType()), c.root());
        } catch (MPIException | RuntimeException e) {
            tally.error(c + ": " + e.getMessage());
            tally.failed = true;
            tally.timedOut = String.valueOf(e.getMessage()).contains("timed out");
            return false;
        }
        String problem = mem.verify(c.type(), c.count(), key);
        if (problem != null) {
            tally.error(c + ": " + problem);
            tally.wrong++;
        }
        tally.bytes += c.bytes();
        return true;
    }

    private ProgressBar progressBar(String label, long seconds) {
        if (rank != 0 || noProgress) {
            return null;
        }
        return new ProgressBarBuilder()
                .setTaskName("soak " + label)
                .setInitialMax(calls != null ? calls : seconds)
                .setUnit(calls != null ? " calls" : " s", 1)
                .setUpdateIntervalMillis(1000)
                .setConsumer(new ConsoleProgressBarConsumer(System.err))
                .build();
    }

    /**
     * Sums the segment's errors over the ranks and takes the maximum of each memory figure (and of each
     * rank's growth); rank 0 prints them. Returns the segment's exit status.
     */
    private int report(Segment seg, long tolerance) throws MPIException, MpiFailure {
        Tally tally = seg.tally;
        long[] totals = {tally.errors, tally.failed ? 1 : 0, tally.wrong, tally.timedOut ? 1 : 0};
        world.allReduce(totals, totals.length, MPI.LONG, MPI.SUM);
        seg.errors = totals[2];
        seg.failures = totals[1];
        seg.timeouts = totals[3];
        int f = MemoryProbe.FIELDS;
        long[] mem = new long[3 * f];
        System.arraycopy(seg.start.toArray(), 0, mem, 0, f);
        System.arraycopy(seg.end.toArray(), 0, mem, f, f);
        for (int i = 0; i < f; i++) {
            mem[2 * f + i] = mem[f + i] - mem[i];
        }
        world.allReduce(mem, mem.length, MPI.LONG, MPI.MAX);
        String[] firstErrors =
                StringExchange.allGather(OpenMpi.comm(world), truncate(tally.first()), ERROR_RECORD_BYTES);
        MemoryProbe s = MemoryProbe.of(mem, 0);
        MemoryProbe e = MemoryProbe.of(mem, f);
        MemoryProbe growth = MemoryProbe.of(mem, 2 * f);
        seg.maxStart = s;
        seg.maxEnd = e;
        seg.maxGrowth = growth;
        boolean flat = growth.rssBytes() <= tolerance
                && growth.heapBytes() <= 16 * MIB
                && growth.directBytes() <= MIB
                && growth.openFiles() <= 0;
        seg.flat = flat;
        boolean plans = this.plans != null;
        if (rank == 0) {
            System.out.printf(
                    Locale.ROOT,
                    "%scalls: %d after warm-up (%d warm-up calls) in %.1f s, bytes moved: %s (%d)," + " errors: %d%s%n",
                    plans ? "plan " + seg.label + ": " : "",
                    tally.calls,
                    tally.warmupCalls,
                    seg.elapsed,
                    bytes(tally.bytes),
                    tally.bytes,
                    totals[0],
                    totals[1] > 0
                            ? " (stopped early: a call failed on " + totals[1] + " ranks, " + totals[3]
                                    + " of them timed out)"
                            : "");
            if (!plans) {
                System.out.println("memory, max over ranks    after warm-up        at end   growth (max per rank)");
                row("resident set (VmRSS)", s.rssBytes(), e.rssBytes(), growth.rssBytes(), true);
                row("  anonymous (RssAnon)", s.anonBytes(), e.anonBytes(), growth.anonBytes(), true);
                row("  shared (RssShmem)", s.shmemBytes(), e.shmemBytes(), growth.shmemBytes(), true);
                row("heap used after GC", s.heapBytes(), e.heapBytes(), growth.heapBytes(), true);
                row("direct buffers", s.directBytes(), e.directBytes(), growth.directBytes(), true);
                if (s.jvmNativeBytes() >= 0) {
                    row("JVM native (NMT)", s.jvmNativeBytes(), e.jvmNativeBytes(), growth.jvmNativeBytes(), true);
                }
                row("open files", s.openFiles(), e.openFiles(), growth.openFiles(), false);
            }
            System.out.printf(
                    Locale.ROOT,
                    "memory %s: resident set grew at most %s (tolerance %s; anonymous %s, shared %s), heap %s,"
                            + " direct %s, files %+d%n",
                    flat ? "flat" : "GREW",
                    bytes(growth.rssBytes()),
                    bytes(tolerance),
                    bytes(growth.anonBytes()),
                    bytes(growth.shmemBytes()),
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
            if (plans) {
                System.out.printf(
                        Locale.ROOT,
                        "%s plan=%s calls=%d bytes=%d errors=%d failures=%d timeouts=%d rss_start=%d rss_end=%d"
                                + " anon_start=%d anon_end=%d shmem_start=%d shmem_end=%d heap_start=%d heap_end=%d"
                                + " direct_start=%d direct_end=%d jvm_native_start=%d jvm_native_end=%d memory=%s%n",
                        PLAN_RESULT,
                        seg.label,
                        tally.calls,
                        tally.bytes,
                        seg.errors,
                        seg.failures,
                        seg.timeouts,
                        s.rssBytes(),
                        e.rssBytes(),
                        s.anonBytes(),
                        e.anonBytes(),
                        s.shmemBytes(),
                        e.shmemBytes(),
                        s.heapBytes(),
                        e.heapBytes(),
                        s.directBytes(),
                        e.directBytes(),
                        s.jvmNativeBytes(),
                        e.jvmNativeBytes(),
                        flat ? "flat" : "grew");
            } else {
                System.out.printf(
                        Locale.ROOT,
                        "%s calls=%d bytes=%d errors=%d rss_start=%d rss_end=%d heap_start=%d"
                                + " heap_end=%d memory=%s%n",
                        RESULT,
                        tally.calls,
                        tally.bytes,
                        totals[0],
                        s.rssBytes(),
                        e.rssBytes(),
                        s.heapBytes(),
                        e.heapBytes(),
                        flat ? "flat" : "grew");
            }
            System.out.flush();
        }
        return totals[0] > 0 ? 1 : flat ? 0 : 3;
    }

    /** The plans side by side (rank 0): what each did and how each rank's memory moved during it. */
    private static void planTable(List<Segment> done, long tolerance) {
        System.out.println("plans, memory as max over ranks: start (after the plan's warm-up) -> end, in MiB");
        System.out.printf(
                Locale.ROOT,
                "  %-32s %7s %6s %8s %8s %15s %15s %13s %11s %11s %15s%n",
                "plan",
                "calls",
                "wrong",
                "failures",
                "timeouts",
                "rss",
                "anon",
                "shmem",
                "heap",
                "direct",
                "jvm native");
        for (Segment d : done) {
            System.out.printf(
                    Locale.ROOT,
                    "  %-32s %7d %6d %8d %8d %15s %15s %13s %11s %11s %15s%s%n",
                    d.label,
                    d.tally.calls,
                    d.errors,
                    d.failures,
                    d.timeouts,
                    mib(d.maxStart.rssBytes(), d.maxEnd.rssBytes()),
                    mib(d.maxStart.anonBytes(), d.maxEnd.anonBytes()),
                    mib(d.maxStart.shmemBytes(), d.maxEnd.shmemBytes()),
                    mib(d.maxStart.heapBytes(), d.maxEnd.heapBytes()),
                    mib(d.maxStart.directBytes(), d.maxEnd.directBytes()),
                    d.maxStart.jvmNativeBytes() < 0 ? "-" : mib(d.maxStart.jvmNativeBytes(), d.maxEnd.jvmNativeBytes()),
                    d.flat ? "" : "  GREW");
        }
        Segment first = done.get(0);
        Segment last = done.get(done.size() - 1);
        System.out.printf(
                Locale.ROOT,
                "whole soak: resident set %s after the first warm-up, %s at the end (max over ranks; tolerance %s per"
                        + " plan)%n",
                bytes(first.maxStart.rssBytes()),
                bytes(last.maxEnd.rssBytes()),
                bytes(tolerance));
    }

    private static String mib(long start, long end) {
        return String.format(Locale.ROOT, "%.0f->%.0f", start / (double) MIB, end / (double) MIB);
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
    /** One segment's tally and memory on this rank, and after {@link #report} its figures over all ranks. */
    private static final class Segment {
        final String label;
        final Tally tally;
        final MemoryProbe start;
        final MemoryProbe end;
        final double elapsed;
        long errors;
        long failures;
        long timeouts;
        boolean flat;
        MemoryProbe maxStart;
        MemoryProbe maxEnd;
        MemoryProbe maxGrowth;

        Segment(String label, Tally tally, MemoryProbe start, MemoryProbe end, double elapsed) {
            this.label = label;
            this.tally = tally;
            this.start = start;
            this.end = end;
            this.elapsed = elapsed;
        }
    }

    /** Counts of one rank; the first few errors kept for the report. */
    private static final class Tally {
        long calls;
        long warmupCalls;
        long bytes;
        /** Wrong data and failed calls. */
        long errors;
        /** Calls whose data was wrong. */
        long wrong;

        boolean failed;
        /** The failed call timed out. */
        boolean timedOut;

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
