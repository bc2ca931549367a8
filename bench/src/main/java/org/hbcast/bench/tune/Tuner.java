package org.hbcast.bench.tune;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.HierarchicalBcast;
import org.hbcast.bench.AgreedInputs;
import org.hbcast.bench.ByteSizes;
import org.hbcast.bench.MpiCommand;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.select.Explanation;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.Candidates;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.CostModel;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.TuningFiles;
import org.hbcast.tuning.TuningJson;
import org.hbcast.tuning.TuningTable;
import org.hbcast.tuning.TuningTableLoader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The tuner (an MPI program, run with {@code scripts/hbrun} on the layout to tune): sweeps chunk
 * size, radix and algorithm over message sizes on this machine, with a progress bar and ETA on rank
 * 0, and writes the tuning table of this fingerprint (JSON) and a plot of latency against chunk size
 * per message size with the chosen point marked (PNG). {@code --validate} then measures, side by side
 * in the same run, the sweep's best point, the selector's choice with the table and the model's
 * alone (see {@link SelectorCheck}). {@code --calibrate} calibrates in the same launch, before the
 * sweep and again after it, just before the table is written and checked, and merges the two: a
 * launch of ranks that outnumber the cores has conditions of its own that drift over minutes, and a
 * model priced in another launch's conditions, or at one moment of this one, is checked against
 * runs that never met them.
 */
@Command(
        name = "tune",
        mixinStandardHelpOptions = true,
        description = "Sweep chunk size, radix and algorithm; write a tuning table and a plot.")
public final class Tuner implements Callable<Integer> {
    @Option(names = "--sizes", description = "message sizes MIN:MAX, powers of two (default ${DEFAULT-VALUE})")
    String sizes = "64K:64M";

    @Option(names = "--chunks", description = "chunk sizes MIN:MAX, powers of two (default ${DEFAULT-VALUE})")
    String chunks = "16K:4M";

    @Option(
            names = "--max-radix",
            description = "largest radix tried where the tree has room for it (default ${DEFAULT-VALUE})")
    int maxRadix = Candidates.MAX_RADIX;

    @Option(names = "--algorithms", split = ",", description = "algorithms swept (default native,knomial,hierarchical)")
    List<String> algorithms = List.of("native", "knomial", "hierarchical");

    @Option(
            names = "--intra",
            split = ",",
            description = "intra-node transports swept for hierarchical (default ring,fanout)")
    List<String> intra = List.of("ring", "fanout");

    @Option(names = "-i", description = "timed calls per point and run (default ${DEFAULT-VALUE})")
    int iterations = 10;

    @Option(names = "-x", description = "warm-up calls per point (default ${DEFAULT-VALUE})")
    int warmup = 2;

    @Option(
            names = "--min-run-ms",
            description = "shortest timed run of a point: small messages get more calls (default ${DEFAULT-VALUE})")
    double minRunMs = 5;

    @Option(names = "--repeat", description = "runs per point; the median counts (default ${DEFAULT-VALUE})")
    int repeat = 3;

    @Option(
            names = "--check-runs",
            description = "interleaved runs per size of the selector check: its ratios are"
                    + " medians over them and need more than the sweep's points (default ${DEFAULT-VALUE})")
    int checkRuns = 15;

    @Option(
            names = "--check-passes",
            description =
                    "passes through the sizes that share the check's runs, so that"
                            + " each size meets the machine at several moments, not in one spell (default 5, at most --check-runs)")
    Integer checkPasses;

    @Option(names = "--out", description = "tuning table to write (default: the cache place of this fingerprint)")
    Path out;

    @Option(names = "--plot", description = "PNG plot to write (default: the table's name with .png)")
    Path plot;

    @Option(
            names = "--validate",
            description = "after the sweep, compare best, table choice and model choice side by side")
    boolean validate;

    @Option(names = "--validate-only", description = "no sweep: validate the existing table given by --out")
    boolean validateOnly;

    @Option(
            names = "--calibrate",
            paramLabel = "OPTIONS",
            arity = "0..1",
            fallbackValue = "",
            description =
                    "calibrate in this launch before the sweep and again after it, merging the two (by calibrate's"
                            + " --merge-by), with these options of calibrate (one quoted argument, split at spaces; none for its"
                            + " defaults), and write the calibration where the cost model reads it: the model is then priced in"
                            + " the conditions that the sweep and the check meet")
    String calibrateOptions;

    private Intracomm world;
    private int rank;

    public static void main(String[] args) throws Exception {
        // --calibrate's value is itself options ("-i 3 --passes 1"), not options of the tuner.
        MpiCommand.run(rank -> MpiCommand.commandLine(new Tuner()).setAllowOptionsAsOptionParameters(true), args);
    }

    @Override
    public Integer call() throws Exception {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        List<Long> sizeList = ByteSizes.powersOfTwo(sizes);
        List<Long> chunkList = ByteSizes.powersOfTwo(chunks);
        if (chunkList.get(chunkList.size() - 1) > BcastOptions.MAX_CHUNK_BYTES || chunkList.get(0) < 64) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--chunks must lie within 64.." + BcastOptions.MAX_CHUNK_BYTES);
        }
        if (iterations < 1 || warmup < 0 || repeat < 1 || checkRuns < 1 || maxRadix < 2 || !(minRunMs >= 0)) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "-i, --repeat, --check-runs >= 1, -x >= 0, --min-run-ms >= 0, --max-radix >= 2");
        }
        int passes = checkPasses != null ? checkPasses : Math.min(SelectorCheck.DEFAULT_PASSES, checkRuns);
        if (passes < 1 || passes > checkRuns) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "--check-passes must lie within 1.." + checkRuns
                            + " (--check-runs: each pass makes at least one run), got " + passes);
        }
        Calibrate calibrator = calibrator();
        BcastOptions base = BcastOptions.defaults();
        AgreedInputs probed = probe(base);
        Fingerprint fp = probed.fingerprint();
        ClusterShape shape = probed.shape();
        Path table = out != null ? out : TuningFiles.defaultTable(System.getenv(), fp);
        Path png = plot != null ? plot : Path.of(table.toString().replaceFirst("\\.json$", "") + ".png");
        ByteBuffer buf = buffer(sizeList.get(sizeList.size() - 1));
        BcastClock clock = new BcastClock(world, warmup, iterations, minRunMs / 1e3);
        List<TuningTable.Entry> entries;
        if (validateOnly) {
            TuningTableLoader.Loaded<TuningTable> loaded = TuningTableLoader.table(table, fp, MemoryKind.HOST);
            if (!loaded.ok()) {
                if (rank == 0) {
                    System.err.println(loaded.warning());
                }
                return 1;
            }
            entries = loaded.value().entries();
            buf = buffer(entries.get(entries.size() - 1).bytes());
            calibrate(calibrator, null);
        } else {
            List<Config> configs = configs(shape, chunkList);
            if (configs.isEmpty()) {
                // Every rank probed the same layout, so every rank refuses it alike, before any sweep.
                throw new CommandLine.ParameterException(
                        new CommandLine(this),
                        "--algorithms " + String.join(",", algorithms) + " --intra " + String.join(",", intra)
                                + ": no candidate on " + shape + " (candidates there: "
                                + Candidates.algorithms(shape, MemoryKind.HOST)
                                + "; one node has no flat tree, Open MPI's bcast runs it without the JVM, and"
                                + " the hierarchy needs a node of two ranks)");
            }
            Path before = calibrate(calibrator, null);
            if (rank == 0) {
                System.out.println("# tuning " + fp + " on " + world.getSize() + " ranks");
            }
            entries = sweep(base, configs, sizeList, buf, clock);
            calibrate(calibrator, before);
            Calibration calibration = probe(base).inputs().calibration();
            if (rank == 0) {
                write(
                        new TuningTable(
                                TuningTable.FORMAT_VERSION,
                                fp,
                                fp.id(),
                                MemoryKind.HOST,
                                Instant.now().toString(),
                                calibration.isBuiltIn() ? null : calibration,
                                entries),
                        table,
                        png);
            }
        }
        world.barrier();
        if (validate || validateOnly) {
            new SelectorCheck(world, base, table, buf, clock, checkRuns, passes).run(entries);
        }
        return 0;
    }

    /** A broadcast that reads no tuning table: the fingerprint, the layout and the calibration the model reads. */
    /** The inputs a run of {@code base} agrees, without a table (collective). */
    private AgreedInputs probe(BcastOptions base) throws MPIException {
        return AgreedInputs.agree(world, base.withTuningFile(Path.of("none")));
    }

    /**
     * Calibrates with {@code calibrator} (nothing when null); where {@code earlier} names the
     * calibration this launch wrote before its sweep, merges with it (by {@code --merge-by}, the
     * slowest by default). An oversubscribed launch drifts between modes over minutes: the sweep and
     * the check of one launch once timed one point 4x apart, and a calibration taken after the sweep
     * alone timed the 4-rank ring at 512 KiB seven times faster than the check then ran it. A figure
     * seen at both moments is what the check may meet.
     *
     * @return the file written, or null without a calibrator
     */
    private Path calibrate(Calibrate calibrator, Path earlier) throws IOException, MPIException {
        if (calibrator == null) {
            return null;
        }
        if (earlier != null) {
            calibrator.mergeWith(earlier);
        }
        Path written = calibrator.run(world);
        world.barrier();
        return written;
    }

    /** The calibration {@code --calibrate} asks for, its options checked before anything is measured; null without it. */
    private Calibrate calibrator() {
        if (calibrateOptions == null) {
            return null;
        }
        Calibrate c = new Calibrate();
        String[] args = calibrateOptions.isBlank()
                ? new String[0]
                : calibrateOptions.strip().split("\\s+");
        try {
            MpiCommand.commandLine(c).parseArgs(args);
        } catch (CommandLine.ParameterException e) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this), "--calibrate '" + calibrateOptions + "': " + e.getMessage());
        }
        return c;
    }

    private static ByteBuffer buffer(long bytes) {
        if (bytes > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("messages above 2 GiB cannot be broadcast from one buffer: " + bytes);
        }
        return ByteBuffer.allocateDirect((int) bytes);
    }

    /** Every point of the sweep, measured; the best per size first in each entry's reasoning. */
    private List<TuningTable.Entry> sweep(
            BcastOptions base, List<Config> configs, List<Long> sizeList, ByteBuffer buf, BcastClock clock)
            throws MPIException {
        List<List<TuningTable.Point>> points = new ArrayList<>();
        sizeList.forEach(s -> points.add(new ArrayList<>()));
        long total = 0;
        for (Config c : configs) {
            total += sizeList.stream().filter(c::applies).count();
        }
        try (ProgressBar bar = rank == 0
                ? new ProgressBarBuilder()
                        .setTaskName("tune")
                        .setInitialMax(total)
                        .setConsumer(new ConsoleProgressBarConsumer(System.err))
                        .setUpdateIntervalMillis(500)
                        .build()
                : null) {
            for (Config c : configs) {
                BcastOptions o = base.withAlgorithm(BcastOptions.Algorithm.valueOf(c.algorithm.name()))
                        .withChunkBytes(c.chunk)
                        .withRadix(c.radix)
                        .withIntra(BcastOptions.IntraNode.valueOf(c.intra.name()))
                        .withTuningFile(Path.of("none"));
                try (HierarchicalBcast hb = HierarchicalBcast.create(world, o)) {
                    for (int s = 0; s < sizeList.size(); s++) {
                        long m = sizeList.get(s);
                        if (!c.applies(m)) {
                            continue;
                        }
                        double t = clock.seconds(() -> hb.bcast(buf, (int) m, MPI.BYTE, 0), repeat);
                        int recorded = c.algorithm == Algorithm.NATIVE
                                ? (int) Math.min(m, CostModel.NATIVE_SEGMENT_BYTES)
                                : c.chunk;
                        points.get(s).add(new TuningTable.Point(c.algorithm, recorded, c.radix, t, c.intra));
                        if (bar != null) {
                            bar.setExtraMessage(c + " @ " + m + " B");
                            bar.step();
                        }
                    }
                }
            }
        }
        List<TuningTable.Entry> entries = new ArrayList<>();
        for (int s = 0; s < sizeList.size(); s++) {
            List<TuningTable.Point> p = points.get(s);
            if (p.isEmpty()) {
                continue;
            }
            TuningTable.Point best = p.stream()
                    .min(Comparator.comparingDouble(TuningTable.Point::seconds))
                    .orElseThrow();
            entries.add(new TuningTable.Entry(
                    sizeList.get(s),
                    best.algorithm(),
                    best.chunkBytes(),
                    best.radix(),
                    best.seconds(),
                    p,
                    best.intra()));
        }
        return entries;
    }

    /** One configuration of the sweep; 0 chunk for native (it cuts its own); the ring unless hierarchical says. */
    private record Config(Algorithm algorithm, int chunk, int radix, IntraNode intra) {
        boolean applies(long bytes) {
            return algorithm == Algorithm.NATIVE || chunk <= bytes;
        }

        @Override
        public String toString() {
            return algorithm == Algorithm.NATIVE
                    ? "native"
                    : Explanation.name(algorithm, intra) + " " + chunk / 1024 + "K k=" + radix;
        }
    }

    private List<Config> configs(ClusterShape shape, List<Long> chunkList) {
        List<Config> list = new ArrayList<>();
        for (Algorithm a : Candidates.algorithms(shape, MemoryKind.HOST)) {
            if (!algorithms.contains(a.toString())) {
                continue;
            }
            if (a == Algorithm.NATIVE) {
                list.add(new Config(a, 0, 2, IntraNode.RING));
                continue;
            }
            List<IntraNode> transports = a == Algorithm.HIERARCHICAL
                    ? Candidates.intra(shape, MemoryKind.HOST, IntraNode.AUTO).stream()
                            .filter(t -> intra.contains(t.toString()))
                            .toList()
                    : List.of(IntraNode.RING);
            for (IntraNode t : transports) {
                for (long c : chunkList) {
                    for (int k : Candidates.radices(a, shape, maxRadix)) {
                        list.add(new Config(a, (int) c, k, t));
                    }
                }
            }
        }
        return list;
    }

    private void write(TuningTable t, Path table, Path png) throws Exception {
        Path dir = table.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        TuningJson.mapper().writeValue(table.toFile(), t);
        TunePlot.write(t, png);
        System.out.println("# table: " + table);
        System.out.println("# plot:  " + png);
        System.out.printf("# %-10s %-20s %-9s %-6s %s%n", "size", "best", "chunk", "radix", "latency(us)");
        for (TuningTable.Entry e : t.entries()) {
            System.out.printf(
                    "  %-10d %-20s %-9d %-6d %.1f%n",
                    e.bytes(),
                    Explanation.name(e.algorithm(), e.intra()),
                    e.chunkBytes(),
                    e.radix(),
                    e.seconds() * 1e6);
        }
        System.out.flush();
    }
}
