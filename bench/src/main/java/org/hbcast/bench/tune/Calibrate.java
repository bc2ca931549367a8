package org.hbcast.bench.tune;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.stream.IntStream;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.HierarchicalBcast;
import org.hbcast.bench.AgreedInputs;
import org.hbcast.bench.ByteSizes;
import org.hbcast.bench.MpiCommand;
import org.hbcast.bench.gpu.PcieRate;
import org.hbcast.device.CudaDevices;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.plan.IntraNode;
import org.hbcast.select.Explanation;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.CostModel;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.NodeCurve;
import org.hbcast.tuning.TimedSize;
import org.hbcast.tuning.TuningFiles;
import org.hbcast.tuning.TuningJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Calibration (an MPI program, run with {@code scripts/hbrun}): measures the start-up time and
 * bandwidth of each link kind of this machine from a small and a large transfer, and Open MPI's
 * own broadcast on this layout, and writes them as the calibration of this hardware. Links:
 * hbcast's shared-memory ring between the first two ranks of node 0 (a ring of two, one chunk per
 * call), Open MPI point-to-point between them (ping-pong), the network between node leaders
 * (hbcast's own tree over them; a ping-pong over shared memory for virtual nodes), and a host memory
 * copy. CUDA IPC and PCIe keep their built-in figures here. For the MPI links it also records, by
 * size, a curve of the transfer time and of the gap a further message adds in a stream of
 * {@value #STREAM} back-to-back sends (what a pipelined tree pays per segment).
 *
 * <p>Inside a node it also measures what a ping-pong cannot see: the ring and the fan-out streaming
 * over every rank of node 0 at each chunk size, one chunk per call and then messages of many chunks
 * (see {@link #curveMessages}), which give the {@link NodeCurve} (fill, and per-chunk stage by message
 * size) of each transport on this node size. On a layout of several nodes it measures the same for
 * the whole two-level broadcast, every rank taking part: the two-level curves, which price the
 * network hop as a broadcast meets it (leaders feeding their nodes on shared cores).
 *
 * <p>Every point is the median of {@code --passes} passes (default {@value #PASSES}), the curves'
 * points their mean ratio to their rivals over rounds of all sizes (see {@link #curves}); where
 * {@code --merge} names the files of earlier launches, it is merged over the launches
 * ({@link CalibrationMerge}; by default the slowest launch's figure counts). Ranks that
 * sit out a measurement sleep ({@link QuietBarrier}) rather than poll, so that the figures are the
 * machine's and not the moment's.
 */
@Command(
        name = "calibrate",
        mixinStandardHelpOptions = true,
        description = "Measure link start-up times and bandwidths; write the calibration of this hardware.")
public final class Calibrate implements Callable<Integer> {
    @Option(names = "--small", description = "small transfer for start-up times (default ${DEFAULT-VALUE})")
    String small = "64";

    @Option(names = "--large", description = "large transfer for bandwidths (default ${DEFAULT-VALUE})")
    String large = "1M";

    @Option(
            names = "--link-sizes",
            description =
                    "sizes MIN:MAX of the MPI links' transfer curves, none for the straight line only (default ${DEFAULT-VALUE})")
    String linkSizes = "64:4M";

    @Option(names = "-i", description = "timed round trips or calls per measurement (default ${DEFAULT-VALUE})")
    int iterations = 50;

    @Option(
            names = "--native-sizes",
            description = "sizes MIN:MAX at which Open MPI's bcast is timed, none to skip (default ${DEFAULT-VALUE})")
    String nativeSizes = "1:64M";

    @Option(
            names = "--node-chunks",
            description =
                    "chunk sizes MIN:MAX of the intra-node and two-level curves, none to skip (default ${DEFAULT-VALUE})")
    String nodeChunks = "64:4M";

    /**
     * Passes over all sizes of a measurement; each point keeps its median pass ({@link PassSamples}):
     * separated passes do not share one slow spell of the machine.
     */
    static final int PASSES = 3;

    @Option(
            names = "--passes",
            description = "passes over all sizes of each measurement; a point is their median; the" + " curves take "
                    + RUNS_PER_PASS + " rounds of one run per pass (default ${DEFAULT-VALUE})")
    int passes = PASSES;

    @Option(
            names = "--merge",
            paramLabel = "FILE",
            description = "calibration written by an earlier launch on this"
                    + " hardware with the same options (repeatable): the file written merges every figure over the launches,"
                    + " this one included (see --merge-by)")
    List<Path> merge = new ArrayList<>();

    @Option(
            names = "--merge-by",
            description =
                    "which launch a merged figure follows: ${COMPLETION-CANDIDATES}" + " (default ${DEFAULT-VALUE})")
    CalibrationMerge.Statistic mergeBy = CalibrationMerge.Statistic.SLOWEST;

    /** Timed runs of one point in one pass (their median). */
    static final int RUNS_PER_PASS = 3;

    /** Back-to-back sends of one stream measurement of a link's gap. */
    static final int STREAM = 16;

    /** Shortest timed run of a broadcast: shorter ones measure the scheduler of an oversubscribed node. */
    static final double MIN_RUN_SECONDS = 0.005;

    /** Chunks per call of the streaming measurement: enough past the slots (8) to reach the steady state. */
    static final int CURVE_CHUNKS = 16;

    /** Largest message of the intra-node curves. */
    static final long LARGEST_CURVE_MESSAGE = 64 << 20;

    /**
     * Shortest timed run of one plan in the curves' rotation. With 10 plans rotating in runs of
     * 5 ms, a 4-rank node met no fast spell in 45 s at 2 MiB; with runs of 50 ms, fast spells came in
     * 3 of 9 windows of 5 s (see {@link #curves} for why both kinds must be met). 20 ms keeps a
     * tuning launch within about 1.5 times the time of runs of 5 ms.
     */
    static final double CURVE_RUN_MS = 20;

    @Option(
            names = "--curve-run-ms",
            description = "shortest timed run of one plan of the intra-node and two-level"
                    + " curves, whose rivals rotate run by run (default ${DEFAULT-VALUE})")
    double curveRunMs = CURVE_RUN_MS;

    @Option(names = "--out", description = "file to write (default: the cache place of this hardware)")
    Path out;

    private static final int TAG = 0x4863;
    private Intracomm world;
    private int rank;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new Calibrate(), args);
    }

    @Override
    public Integer call() throws Exception {
        run(MPI.COMM_WORLD);
        return 0;
    }

    /**
     * Measures on {@code comm} (every rank of it calls this) and writes the calibration from rank 0,
     * where {@code --out} says or where the cost model reads it ({@link TuningFiles#calibration}).
     * The tuner calls this in its own launch so that the model is priced in that launch's
     * conditions.
     *
     * @return the file written (on every rank)
     */
    Path run(Intracomm comm) throws IOException, MPIException {
        world = comm;
        rank = world.getRank();
        int smallBytes = (int) ByteSizes.parse(small);
        int largeBytes = (int) ByteSizes.parse(large);
        if (smallBytes < 1
                || largeBytes <= smallBytes
                || largeBytes > BcastOptions.MAX_CHUNK_BYTES
                || iterations < 1
                || passes < 1
                || !(curveRunMs >= 0)) {
            throw new CommandLine.ParameterException(
                    new CommandLine(this),
                    "need 1 <= --small < --large <= " + BcastOptions.MAX_CHUNK_BYTES
                            + ", -i >= 1, --passes >= 1 and --curve-run-ms >= 0");
        }
        // Read before measuring: a file that cannot be merged fails now, not after minutes of work.
        List<Calibration> earlier = readEarlierLaunches();
        BcastOptions base = BcastOptions.defaults().withTuningFile(Path.of("none"));
        AgreedInputs probed = AgreedInputs.agree(world, base);
        Fingerprint fp = probed.fingerprint();
        NodeLayout layout = probed.layout();
        ClusterShape shape = probed.shape();
        for (int i = 0; i < earlier.size(); i++) {
            if (!earlier.get(i).hardware().equals(fp.hardware())) {
                throw new CommandLine.ParameterException(
                        new CommandLine(this),
                        "--merge " + merge.get(i)
                                + " is a calibration of '" + earlier.get(i).hardware() + "', not of this hardware '"
                                + fp.hardware() + "'");
            }
        }
        List<LinkCalibration> links = new ArrayList<>();
        List<Long> curveSizes = linkSizes.equals("none") ? List.of() : ByteSizes.powersOfTwo(linkSizes);
        long buffer = Math.max(largeBytes, curveSizes.isEmpty() ? 0 : curveSizes.get(curveSizes.size() - 1));
        ByteBuffer a = ByteBuffer.allocateDirect((int) buffer);
        ByteBuffer b = ByteBuffer.allocateDirect(largeBytes);
        if (rank == 0) {
            links.add(
                    fit(LinkKind.HOST_MEMCPY, copy(a, b, smallBytes), copy(a, b, largeBytes), smallBytes, largeBytes));
            links.add(pcie());
        }
        if (layout.nodeSize(0) > 1) {
            int peer = layout.rankAt(0, 1);
            links.add(pingPongLink(LinkKind.MPI_SHARED_MEMORY, 0, peer, a, smallBytes, largeBytes, curveSizes));
            links.add(ringLink(base, 0, peer, a, smallBytes, largeBytes));
        }
        if (layout.nodeCount() > 1 && !shape.virtual()) {
            links.add(treeLink(base, layout, smallBytes, largeBytes, curveSizes));
        } else if (layout.nodeCount() > 1
                && links.stream().noneMatch(l -> l != null && l.kind() == LinkKind.MPI_SHARED_MEMORY)) {
            links.add(pingPongLink(
                    LinkKind.MPI_SHARED_MEMORY, 0, layout.rankAt(1, 0), a, smallBytes, largeBytes, curveSizes));
        }
        links.removeIf(l -> l == null);
        List<Long> chunkSizes = nodeChunks.equals("none") ? List.of() : ByteSizes.powersOfTwo(nodeChunks);
        List<NodeCurve> curves =
                layout.nodeSize(0) > 1 && !chunkSizes.isEmpty() ? nodeCurves(base, layout, chunkSizes) : List.of();
        List<NodeCurve> twoLevel = shape.nodes() > 1 && shape.maxNodeSize() > 1 && !chunkSizes.isEmpty()
                ? twoLevelCurves(base, shape, chunkSizes)
                : List.of();
        List<TimedSize> nativeTimes = nativeSizes.equals("none") ? List.of() : nativeCurve();
        Path file = out != null ? out : TuningFiles.calibration(System.getenv(), fp);
        if (rank == 0) {
            Calibration c = Calibration.measured(
                            fp.hardware(),
                            Instant.now().toString(),
                            links,
                            nativeTimes.isEmpty() ? null : shape.toString(),
                            nativeTimes,
                            curves)
                    .withTwoLevel(shape.toString(), twoLevel);
            if (!earlier.isEmpty()) {
                List<Calibration> launches = new ArrayList<>(earlier);
                launches.add(c);
                c = CalibrationMerge.of(launches, mergeBy);
            }
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            TuningJson.mapper().writeValue(file.toFile(), c);
            System.out.println(
                    "# calibration of " + fp.hardware() + " (hardware id " + fp.hardwareId() + ") on " + shape
                            + (earlier.isEmpty()
                                    ? ""
                                    : ", merged from " + (earlier.size() + 1) + " launches by "
                                            + mergeBy.name().toLowerCase(Locale.ROOT)));
            print(c);
            System.out.println("# written to " + file);
        }
        return file;
    }

    /**
     * The host–GPU link on rank 0's GPU ({@link PcieRate}), where a CUDA device can be used; else null
     * (the model keeps its built-in figures). A well-placed GPU program's staging runs at this rate.
     */
    private static LinkCalibration pcie() {
        CudaDevices devices = CudaDevices.get();
        if (!devices.available()) {
            return null;
        }
        PcieRate.Measured m = PcieRate.measure(devices.deviceForLocalRank(0));
        System.out.println("# " + m.describe());
        return m.link();
    }

    /** Merges the next {@link #run} with the calibration in {@code file} (as {@code --merge} does). */
    void mergeWith(Path file) {
        merge.add(file);
    }

    /** The calibrations of earlier launches named by {@code --merge}; a file that cannot be read is an error naming it. */
    private List<Calibration> readEarlierLaunches() {
        List<Calibration> earlier = new ArrayList<>();
        for (Path file : merge) {
            try {
                earlier.add(TuningJson.mapper().readValue(file.toFile(), Calibration.class));
            } catch (IOException | RuntimeException e) {
                throw new CommandLine.ParameterException(
                        new CommandLine(this), "--merge " + file + " is not a readable calibration: " + e.getMessage());
            }
        }
        return earlier;
    }

    /** The figures of {@code c}, one line per link point, node or two-level curve chunk and native size. */
    private static void print(Calibration c) {
        for (LinkCalibration l : c.links()) {
            System.out.printf(
                    Locale.ROOT,
                    "  %-17s ts %8.2f us   b %7.3f GB/s%n",
                    l.kind().id(),
                    l.startupSeconds() * 1e6,
                    l.bytesPerSecond() / 1e9);
            for (int i = 0; i < l.transfers().size(); i++) {
                TimedSize t = l.transfers().get(i);
                System.out.printf(
                        Locale.ROOT,
                        "    %-17s %10d B  transfer %10.1f us  gap in a stream %10.1f us%n",
                        l.kind().id(),
                        t.bytes(),
                        t.seconds() * 1e6,
                        l.gaps().get(i).seconds() * 1e6);
            }
        }
        for (NodeCurve curve : c.nodeCurves()) {
            print(curve, "on " + curve.nodeSize() + " ranks");
        }
        for (NodeCurve curve : c.twoLevelCurves()) {
            print(curve, "on " + c.twoLevelLayout());
        }
        for (TimedSize t : c.nativeTimes()) {
            System.out.printf(Locale.ROOT, "  native bcast %10d B  %10.1f us%n", t.bytes(), t.seconds() * 1e6);
        }
    }

    private static void print(NodeCurve curve, String where) {
        for (NodeCurve.ChunkCost cc : curve.chunks()) {
            StringBuilder stages = new StringBuilder();
            for (TimedSize t : cc.stages()) {
                stages.append(String.format(Locale.ROOT, "  %s %.1f", Explanation.size(t.bytes()), t.seconds() * 1e6));
            }
            System.out.printf(
                    Locale.ROOT,
                    "  %-6s %s, chunk %8d B  fill %9.1f us  stage (us) at%s%n",
                    curve.transport(),
                    where,
                    cc.chunkBytes(),
                    cc.fillSeconds() * 1e6,
                    stages);
        }
    }

    /** ts from the small transfer, b from the difference: {@code t(large) - t(small) = (large - small) / b}. */
    private static LinkCalibration fit(LinkKind kind, double tSmall, double tLarge, int small, int large) {
        double extra = tLarge - tSmall;
        double bandwidth = extra > 0 ? (large - small) / extra : large / tLarge;
        return new LinkCalibration(kind, Math.max(0, tSmall - small / bandwidth), bandwidth, "measured");
    }

    private double copy(ByteBuffer from, ByteBuffer to, int bytes) {
        double[] t = new double[iterations];
        for (int i = -5; i < iterations; i++) {
            ByteBuffer src = from.duplicate().limit(bytes).position(0);
            ByteBuffer dst = to.duplicate().position(0);
            long t0 = System.nanoTime();
            dst.put(src);
            long t1 = System.nanoTime();
            if (i >= 0) {
                t[i] = (t1 - t0) / 1e9;
            }
        }
        return BcastClock.median(t);
    }

    /**
     * Half the round trip between ranks {@code x} and {@code y}, and the gap of a stream, at every
     * size of {@code curve} and at {@code small} and {@code large} (the straight line's ends), each the
     * median of {@code --passes} passes. Every rank takes part in the agreement; the others sleep.
     */
    private LinkCalibration pingPongLink(
            LinkKind kind, int x, int y, ByteBuffer buf, int small, int large, List<Long> curve) throws MPIException {
        List<Long> sizes = withEnds(curve, small, large);
        PassSamples transfers = new PassSamples(sizes.size(), passes);
        PassSamples streams = new PassSamples(sizes.size(), passes);
        PassSamples acks = new PassSamples(1, passes);
        for (int pass = 0; pass < passes; pass++) {
            acks.add(0, pass, pingPong(x, y, buf, 1));
            for (int i = 0; i < sizes.size(); i++) {
                int bytes = (int) (long) sizes.get(i);
                transfers.add(i, pass, pingPong(x, y, buf, bytes));
                if (!curve.isEmpty()) {
                    streams.add(i, pass, exchange(x, y, buf, STREAM, bytes, 1));
                }
            }
        }
        if (rank != x) {
            return null;
        }
        // A stream of STREAM sends and a 1-byte ack: one transfer, STREAM - 1 gaps and the ack's trip.
        double[] transfer = transfers.figures();
        double[] gap = new double[sizes.size()];
        for (int i = 0; i < gap.length; i++) {
            gap[i] = streamGap(streams.figure(i) - acks.figure(0), transfer[i], 1);
        }
        return link(kind, "measured", sizes, transfer, gap, small, large, !curve.isEmpty());
    }

    /**
     * The link between node leaders as hbcast's broadcast sees it: its own segmented k-nomial tree
     * (radix 2) over the leaders, one segment and then a stream of {@value #STREAM} segments at every
     * size, while the other ranks sleep. A ping-pong between two ranks misses what the broadcast
     * meets: its receives posted ahead, its sends overlapping, and the other ranks of the node
     * sharing the cores. The tree's fill over {@code F} sequential sends and its stage over the root's
     * {@code R} children give the per-hop transfer and gap the cost model multiplies back.
     */
    private LinkCalibration treeLink(BcastOptions base, NodeLayout layout, int small, int large, List<Long> curve)
            throws MPIException {
        List<Long> sizes = withEnds(curve, small, large);
        boolean leader = layout.positionOf(rank) == 0;
        Intracomm leaders = world.split(leader ? 0 : 1, rank);
        LinkCalibration result = null;
        try {
            if (leader) {
                ByteBuffer buf = ByteBuffer.allocateDirect((int) (STREAM * sizes.get(sizes.size() - 1)));
                PassSamples fills = new PassSamples(sizes.size(), passes);
                PassSamples streams = new PassSamples(sizes.size(), passes);
                for (int pass = 0; pass < passes; pass++) {
                    for (int i = 0; i < sizes.size(); i++) {
                        long c = sizes.get(i);
                        try (HierarchicalBcast tree = HierarchicalBcast.create(
                                leaders,
                                base.withAlgorithm(Algorithm.KNOMIAL)
                                        .withChunkBytes(roundUp64((int) c))
                                        .withRadix(2))) {
                            fills.add(i, pass, time(leaders, tree, buf, c));
                            streams.add(i, pass, time(leaders, tree, buf, STREAM * c));
                        }
                    }
                }
                int nodes = layout.nodeCount();
                int fillSends = CostModel.fillSends(nodes, 2);
                int rootChildren = CostModel.rootChildren(nodes, 2);
                double[] fill = fills.figures();
                double[] stream = streams.figures();
                double[] transfer = new double[sizes.size()];
                double[] gap = new double[sizes.size()];
                for (int i = 0; i < gap.length; i++) {
                    transfer[i] = fill[i] / fillSends;
                    gap[i] = streamGap(stream[i], fill[i], rootChildren);
                }
                if (rank == 0) {
                    result = link(
                            LinkKind.NETWORK,
                            "measured over the leaders' tree",
                            sizes,
                            transfer,
                            gap,
                            small,
                            large,
                            !curve.isEmpty());
                }
            }
        } finally {
            leaders.free();
        }
        QuietBarrier.await(world);
        return result;
    }

    /**
     * What each further message of a stream of {@value #STREAM} adds, per message each sender sends
     * ({@code sendsPerMessage}), from the stream's time and its first message's. Noise can make the
     * stream look cheaper than that: never a gap below a tenth of a transfer.
     */
    private static double streamGap(double stream, double first, int sendsPerMessage) {
        return Math.max((stream - first) / (STREAM - 1) / sendsPerMessage, first / sendsPerMessage / 10);
    }

    /**
     * A link from its measured transfer and gap times at {@code sizes}: the line from small to large,
     * and the curves if asked, each point capped by the larger sizes' times.
     */
    private static LinkCalibration link(
            LinkKind kind,
            String source,
            List<Long> sizes,
            double[] transfer,
            double[] gap,
            int small,
            int large,
            boolean curves) {
        LinkCalibration line =
                fit(kind, transfer[sizes.indexOf((long) small)], transfer[sizes.indexOf((long) large)], small, large);
        List<TimedSize> transfers = new ArrayList<>();
        List<TimedSize> gaps = new ArrayList<>();
        // A message costs no more than a larger one (it could travel padded): noise above that goes.
        double transferCap = Double.POSITIVE_INFINITY;
        double gapCap = Double.POSITIVE_INFINITY;
        for (int i = sizes.size() - 1; curves && i >= 0; i--) {
            transferCap = Math.min(transferCap, transfer[i]);
            gapCap = Math.min(gapCap, gap[i]);
            transfers.add(0, new TimedSize(sizes.get(i), transferCap));
            gaps.add(0, new TimedSize(sizes.get(i), gapCap));
        }
        return new LinkCalibration(kind, line.startupSeconds(), line.bytesPerSecond(), source, transfers, gaps);
    }

    /** The sizes of {@code curve} with {@code small} and {@code large} added, ascending. */
    static List<Long> withEnds(List<Long> curve, long small, long large) {
        TreeSet<Long> sizes = new TreeSet<>(curve);
        sizes.add(small);
        sizes.add(large);
        return new ArrayList<>(sizes);
    }

    /** Half the round trip of {@code bytes} between ranks x and y (median). */
    private double pingPong(int x, int y, ByteBuffer buf, int bytes) throws MPIException {
        return exchange(x, y, buf, 1, bytes, bytes) / 2;
    }

    /**
     * Seconds (median) from the first of {@code sends} back-to-back sends of {@code bytes} from x to y
     * until y's reply of {@code reply} bytes is back: a ping-pong with one send, a stream with many.
     * Other ranks sleep in the barriers around it, so that they leave the cores to the pair.
     */
    private double exchange(int x, int y, ByteBuffer buf, int sends, int bytes, int reply) throws MPIException {
        int count = Math.max(5, roundTrips(bytes) / sends);
        double[] t = new double[count];
        QuietBarrier.await(world);
        for (int i = -5; i < count; i++) {
            long t0 = System.nanoTime();
            if (rank == x) {
                for (int s = 0; s < sends; s++) {
                    world.send(buf, bytes, MPI.BYTE, y, TAG);
                }
                world.recv(buf, reply, MPI.BYTE, y, TAG);
            } else if (rank == y) {
                for (int s = 0; s < sends; s++) {
                    world.recv(buf, bytes, MPI.BYTE, x, TAG);
                }
                world.send(buf, reply, MPI.BYTE, x, TAG);
            }
            long t1 = System.nanoTime();
            if (i >= 0) {
                t[i] = (t1 - t0) / 1e9;
            }
        }
        QuietBarrier.await(world);
        return BcastClock.median(t);
    }

    /** Round trips timed for {@code bytes}: many for small transfers, where a scheduler hiccup is as long as the transfer. */
    private int roundTrips(int bytes) {
        return (int)
                Math.max(iterations, Math.min(20L * iterations, (1L << 20) * iterations / Math.max(bytes, 1) / 16));
    }

    /** hbcast's ring of two ranks x and y, one chunk per call: {@code ts + m / b} on the receiver. */
    private LinkCalibration ringLink(BcastOptions base, int x, int y, ByteBuffer buf, int small, int large)
            throws MPIException {
        boolean member = rank == x || rank == y;
        Intracomm pair = world.split(member ? 0 : 1, rank);
        LinkCalibration result = null;
        try {
            if (member) {
                try (HierarchicalBcast ring = HierarchicalBcast.create(
                        pair, base.withAlgorithm(Algorithm.HIERARCHICAL).withChunkBytes(roundUp64(large)))) {
                    double tSmall = receiverTime(pair, ring, buf, small);
                    double tLarge = receiverTime(pair, ring, buf, large);
                    if (rank == x) {
                        result = fit(LinkKind.SHARED_MEMORY, tSmall, tLarge, small, large);
                    }
                }
            }
        } finally {
            pair.free();
        }
        QuietBarrier.await(world);
        return result;
    }

    private double receiverTime(Intracomm pair, HierarchicalBcast ring, ByteBuffer buf, int bytes) throws MPIException {
        double[] t = new double[iterations];
        for (int i = -5; i < iterations; i++) {
            pair.barrier();
            long t0 = System.nanoTime();
            ring.bcast(buf, bytes, MPI.BYTE, 0);
            long t1 = System.nanoTime();
            // The receiver's time covers the whole transfer; the root returns once its chunk is posted.
            double[] mine = {(t1 - t0) / 1e9};
            pair.allReduce(mine, 1, MPI.DOUBLE, MPI.MAX);
            if (i >= 0) {
                t[i] = mine[0];
            }
        }
        return BcastClock.median(t);
    }

    /**
     * The streaming costs of the ring and the fan-out over every rank of node 0 (as one node, the
     * others sleeping; see {@link #curves}). Returns nothing on the others.
     */
    private List<NodeCurve> nodeCurves(BcastOptions base, NodeLayout layout, List<Long> chunkSizes)
            throws MPIException {
        int n = layout.nodeSize(0);
        boolean member = layout.nodeOf(rank) == 0;
        Intracomm node = world.split(member ? 0 : 1, rank);
        List<NodeCurve> curves = List.of();
        try {
            if (member) {
                curves = curves(node, base.withNodeSizes(Integer.toString(n)), n, chunkSizes);
            }
        } finally {
            node.free();
        }
        QuietBarrier.await(world);
        return curves;
    }

    /**
     * The streaming costs of the whole two-level broadcast on this layout of several nodes, with the
     * ring and with the fan-out inside the nodes (see {@link #curves}): what the leaders' network
     * hop costs while every rank takes part, sharing the cores, as it does in a broadcast.
     */
    private List<NodeCurve> twoLevelCurves(BcastOptions base, ClusterShape shape, List<Long> chunkSizes)
            throws MPIException {
        List<NodeCurve> curves = curves(world, base, shape.maxNodeSize(), chunkSizes);
        QuietBarrier.await(world);
        return curves;
    }

    /**
     * The two-level broadcast (radix 2) of {@code o} on {@code comm} with the ring and with the
     * fan-out inside its nodes of at most {@code nodeSize} ranks: per chunk size, the time of a
     * one-chunk call (fill) and what each further chunk adds (stage) in the messages of
     * {@link #curveMessages}. The calls are timed message size by message size ({@link #byMessage}),
     * every plan of one message size (chunk size and transport) interleaved with its rivals, in
     * {@link #curveRounds} rounds over all sizes of one run each (at least {@code --curve-run-ms});
     * a point's figure is its mean ratio over the rounds (its worst round left out) to the round's
     * fastest plan of its message size, times the median of those fastest times
     * ({@link PassSamples#figures(List)}).
     *
     * <p>Why: 4 ranks on 2 cores have spells of seconds in which broadcasts run two to three times
     * slower, and the spells do not slow every plan alike. At 2 MiB, 2 chunks of 1 MiB ran at
     * 270-330 µs against 150-175 for 8 of 256 KiB in a fast spell, and at 360-400 against 330-460 in
     * a slow one; at 128 KiB, 4 chunks of 32 KiB beat one of 128 KiB by 2.8 times in a fast spell and
     * tied it in a slow one, while many small chunks are what a slow spell punishes most. The check
     * meets either kind, so a plan must be near the best in both: rivals timed side by side meet the
     * same spell, and the mean ratio weighs the kinds as often as they come. With 3 passes a
     * calibration could meet slow spells only at a message size and miss in a fast check (2 chunks
     * of 1 MiB at 2 MiB, 1.42); rounds some 20 s apart give every size 9 chances per calibration to
     * meet both. Tried and dropped (docs/results/performance-notes.md, "session 10"): the fastest run alone
     * priced 32 chunks of 64 KiB at 2 MiB by a fast spell and missed in a slow check (1.33); the
     * worst ratio over 9 rounds was set by rounds in which a spell began halfway through.
     */
    private List<NodeCurve> curves(Intracomm comm, BcastOptions o, int nodeSize, List<Long> chunkSizes)
            throws MPIException {
        List<IntraNode> transports = List.of(IntraNode.RING, IntraNode.FANOUT);
        int kinds = transports.size();
        // messages.get(k): the messages at which chunk size k's stage is measured.
        List<List<Long>> messages =
                chunkSizes.stream().map(c -> curveMessages(c, o.ringSlots())).toList();
        long largest =
                messages.stream().flatMap(List::stream).max(Long::compare).orElse(1L);
        ByteBuffer buf = ByteBuffer.allocateDirect((int) Math.min(largest, Integer.MAX_VALUE - 64));
        // Point (k, i) of transport t is sample ((first[k] + i) * kinds + t); i = 0 is the one-chunk call.
        int[] first = new int[chunkSizes.size() + 1];
        for (int k = 0; k < chunkSizes.size(); k++) {
            first[k + 1] = first[k] + messages.get(k).size() + 1;
        }
        SortedMap<Long, List<int[]>> byMessage = byMessage(chunkSizes, messages);
        List<Long> sizes = List.copyOf(byMessage.keySet());
        List<List<int[]>> blocks = List.copyOf(byMessage.values());
        // groups.get(g): the points of block g, point by point and transport by transport within a point.
        List<int[]> groups = blocks.stream()
                .map(block -> block.stream()
                        .flatMapToInt(p -> IntStream.range(0, kinds).map(t -> (first[p[0]] + p[1]) * kinds + t))
                        .toArray())
                .toList();
        int rounds = curveRounds(passes);
        PassSamples samples = new PassSamples(first[chunkSizes.size()] * kinds, rounds);
        BcastClock clock = new BcastClock(comm, 2, 3, curveRunMs / 1000);
        HierarchicalBcast[][] hbs =
                connect(comm, o.withAlgorithm(Algorithm.HIERARCHICAL).withRadix(2), chunkSizes, transports);
        try {
            // calls[g][v]: the call of groups.get(g)[v], the same in every round.
            BcastClock.Call[][] calls = new BcastClock.Call[sizes.size()][];
            for (int g = 0; g < sizes.size(); g++) {
                int m = (int) (long) sizes.get(g);
                calls[g] = new BcastClock.Call[groups.get(g).length];
                for (int v = 0; v < calls[g].length; v++) {
                    HierarchicalBcast hb = hbs[blocks.get(g).get(v / kinds)[0]][v % kinds];
                    calls[g][v] = () -> hb.bcast(buf, m, MPI.BYTE, 0);
                }
            }
            for (int round = 0; round < rounds; round++) {
                for (int g = 0; g < sizes.size(); g++) {
                    double[][] runs = clock.interleaved(calls[g], 1, round);
                    int[] ids = groups.get(g);
                    for (int v = 0; v < ids.length; v++) {
                        samples.add(ids[v], round, runs[v][0]);
                    }
                }
            }
        } finally {
            close(hbs);
        }
        double[] figures = samples.figures(groups);
        List<NodeCurve> curves = new ArrayList<>();
        for (int t = 0; t < kinds; t++) {
            List<NodeCurve.ChunkCost> costs = new ArrayList<>();
            for (int k = 0; k < chunkSizes.size(); k++) {
                double[] times = new double[messages.get(k).size() + 1];
                for (int i = 0; i < times.length; i++) {
                    times[i] = figures[(first[k] + i) * kinds + t];
                }
                costs.add(chunkCost(chunkSizes.get(k), messages.get(k), times));
            }
            curves.add(new NodeCurve(transports.get(t), nodeSize, costs).smoothed());
        }
        return curves;
    }

    /**
     * Rounds of the curves for {@code passes} passes: {@value #RUNS_PER_PASS} each, as many runs as
     * the other measurements take of a point, but each in a round of its own.
     */
    static int curveRounds(int passes) {
        return passes * RUNS_PER_PASS;
    }

    /**
     * A broadcast of {@code o} per chunk size and transport, {@code [chunk][transport]}: all are
     * connected before any is timed, so that rivals can be timed side by side.
     */
    private static HierarchicalBcast[][] connect(
            Intracomm comm, BcastOptions o, List<Long> chunkSizes, List<IntraNode> transports) throws MPIException {
        HierarchicalBcast[][] hbs = new HierarchicalBcast[chunkSizes.size()][transports.size()];
        try {
            for (int k = 0; k < chunkSizes.size(); k++) {
                for (int t = 0; t < transports.size(); t++) {
                    hbs[k][t] = HierarchicalBcast.create(
                            comm,
                            o.withChunkBytes(roundUp64((int) (long) chunkSizes.get(k)))
                                    .withIntra(BcastOptions.IntraNode.valueOf(
                                            transports.get(t).name())));
                }
            }
            return hbs;
        } catch (MPIException | RuntimeException e) {
            try {
                close(hbs);
            } catch (MPIException | RuntimeException c) {
                e.addSuppressed(c);
            }
            throw e;
        }
    }

    private static void close(HierarchicalBcast[][] hbs) throws MPIException {
        for (HierarchicalBcast[] row : hbs) {
            for (HierarchicalBcast hb : row) {
                if (hb != null) {
                    hb.close();
                }
            }
        }
    }

    /**
     * The points of the curves by message size, ascending: {k, 0} is chunk size k's one-chunk call
     * (a message of {@code chunkSizes.get(k)}), {k, i} its call at {@code messages.get(k).get(i - 1)};
     * in each message size's list by chunk size.
     */
    static SortedMap<Long, List<int[]>> byMessage(List<Long> chunkSizes, List<List<Long>> messages) {
        SortedMap<Long, List<int[]>> blocks = new TreeMap<>();
        for (int k = 0; k < chunkSizes.size(); k++) {
            blocks.computeIfAbsent(chunkSizes.get(k), m -> new ArrayList<>()).add(new int[] {k, 0});
            for (int i = 0; i < messages.get(k).size(); i++) {
                blocks.computeIfAbsent(messages.get(k).get(i), m -> new ArrayList<>())
                        .add(new int[] {k, i + 1});
            }
        }
        return blocks;
    }

    /** A chunk size's fill and stages from its one-chunk call ({@code times[0]}) and its calls at {@code messages}. */
    private static NodeCurve.ChunkCost chunkCost(long c, List<Long> messages, double[] times) {
        double fill = times[0];
        List<TimedSize> stages = new ArrayList<>();
        for (int i = 1; i <= messages.size(); i++) {
            long count = messages.get(i - 1) / c;
            // Noise can make the long call look no slower than the short one: never a free chunk.
            stages.add(new TimedSize(
                    messages.get(i - 1), Math.max((times[i] - fill) / (count - 1), times[i] / count / 4)));
        }
        return new NodeCurve.ChunkCost((int) c, fill, stages);
    }

    /**
     * Message sizes at which a chunk's stage is measured, ascending: 2, 4 and {@value #CURVE_CHUNKS}
     * chunks (short pipelines, in cache for small chunks), {@code slots} chunks, and, from 8 KiB chunks
     * on, those of 4, 16 and 64 MiB above {@value #CURVE_CHUNKS} chunks, where the node's buffers
     * outgrow the caches and stream from memory. A message of {@code slots} chunks is the most a call
     * hands over without waiting for a slot to be freed: up to it the root runs ahead of the readers,
     * past it every chunk waits for the slowest of them, and the stage changes there (on this machine
     * a 4-rank fan-out of 8 chunks of 32 KiB took 10 µs, where 4 and 16 chunks said 40).
     */
    static List<Long> curveMessages(long chunk, int slots) {
        TreeSet<Long> sizes = new TreeSet<>(List.of(chunk * 2, chunk * 4, chunk * CURVE_CHUNKS));
        if (slots > 1 && chunk * slots <= LARGEST_CURVE_MESSAGE) {
            sizes.add(chunk * slots);
        }
        if (chunk >= 8 << 10) {
            for (long m = 4 << 20; m <= LARGEST_CURVE_MESSAGE; m *= 4) {
                if (m > chunk * CURVE_CHUNKS) {
                    sizes.add(m);
                }
            }
        }
        return List.copyOf(sizes);
    }

    /**
     * Seconds of one broadcast of {@code bytes} on {@code comm} in one pass: the slowest rank, median
     * of {@value #RUNS_PER_PASS} runs of at least 5 ms (one run for messages of 16 MiB and more).
     */
    private double time(Intracomm comm, HierarchicalBcast hb, ByteBuffer buf, long bytes) throws MPIException {
        return new BcastClock(comm, 2, 3, MIN_RUN_SECONDS)
                .seconds(() -> hb.bcast(buf, (int) bytes, MPI.BYTE, 0), runsPerPass(bytes));
    }

    private static int runsPerPass(long bytes) {
        return bytes >= 16 << 20 ? 1 : RUNS_PER_PASS;
    }

    /** Open MPI's broadcast on the whole layout at every size, each the median of {@code --passes} passes. */
    private List<TimedSize> nativeCurve() throws MPIException {
        List<Long> sizes = ByteSizes.powersOfTwo(nativeSizes);
        ByteBuffer buf = ByteBuffer.allocateDirect((int) (long) sizes.get(sizes.size() - 1));
        BcastClock clock = new BcastClock(world, 2, Math.max(1, iterations / 10), 2 * MIN_RUN_SECONDS);
        PassSamples samples = new PassSamples(sizes.size(), passes);
        for (int pass = 0; pass < passes; pass++) {
            for (int i = 0; i < sizes.size(); i++) {
                int m = (int) (long) sizes.get(i);
                samples.add(i, pass, clock.seconds(() -> world.bcast(buf, m, MPI.BYTE, 0), runsPerPass(m)));
            }
        }
        List<TimedSize> times = new ArrayList<>();
        for (int i = 0; i < sizes.size(); i++) {
            times.add(new TimedSize(sizes.get(i), samples.figure(i)));
        }
        return times;
    }

    private static int roundUp64(int bytes) {
        return (bytes + 63) / 64 * 64;
    }
}
