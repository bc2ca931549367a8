package org.hbcast.tuning;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.schedule.TreeShape;

/**
 * Predicted broadcast times from the calibrated links and curves (the formulas, with what the
 * calibration supplies, are written out in {@code docs/cost-model.md}), and the best (algorithm,
 * chunk, radix) among the {@link Candidates}. Pure: the same calibration and arguments give the same answer on
 * every rank.
 *
 * <p>With {@code S = ceil(m / c)} chunks, one transfer of a chunk over a link costing
 * {@code step} (the measured transfer curve, else {@code ts + c / b}) and each further chunk of a
 * stream over it {@code gap} (the measured stream curve, else {@code step}; see
 * {@link LinkCalibration#gapSeconds}):
 * <ul>
 * <li>inside a node: the measured {@link NodeCurve} of the transport where the calibration has one for
 *     the node's size ({@code fill(c) + (S - 1) * stage(c, m)}: cores shared, copies per chunk and
 *     cache effects included); otherwise from the links: ring of {@code n} {@code (S + n - 2) * step}, fan-out
 *     {@code S * step} (one copy in and one out per chunk, the readers in parallel);
 * <li>segmented k-nomial tree over {@code N}: {@code F * step + (S - 1) * R * gap}, where {@code F} is the
 *     number of sends before the first segment reaches the last participant (sends farthest first;
 *     {@code (k - 1) * ceil(log_k N)} for a full tree) and {@code R} the root's child count: the root
 *     sends every segment {@code R} times. With {@code S = 1} this is the unsegmented tree. The leaders'
 *     other shapes ({@link TreeShape}) follow the same formula with their own {@code F} and, for
 *     {@code R}, the sends per chunk of their busiest participant: 1 for the chain ({@code F = N - 1})
 *     and for the two trees ({@code F} about {@code 2 log2 N});
 * <li>hierarchical: the measured two-level curve where the calibration has one for the layout
 *     ({@code fill(c) + (S - 1) * stage(c, m)}, as inside a node); otherwise tree among leaders and
 *     ring or fan-out inside the nodes overlapped over the same chunks: both fill times plus
 *     {@code (S - 1)} times the slower stage; device buffers add a PCIe copy per chunk at each end of
 *     the network hop, pipelined as one more stage;
 * <li>native: Open MPI's measured times on the calibrated layout when there are some, otherwise its
 *     segmented binomial tree (128 KiB segments) over the MPI links. For device memory native is
 *     staging through the host: the whole message device to pinned host at the root, Open MPI's
 *     broadcast of host memory, host to device at every other rank ({@code 2 * pcie(m) + native(m)}).
 * </ul>
 *
 * <p>Device memory inside a node: where ranks share a GPU (more ranks on a node, or on the host of
 * virtual nodes, than GPUs) every hop of the CUDA ring adds {@link #GPU_SWITCH_SECONDS}, and a call
 * that goes buffer to buffer ({@link #DIRECT_FROM_BYTES} and up) maps and unmaps its neighbour's
 * buffer once ({@link #IPC_MAP_SECONDS}).
 */
public final class CostModel {
    /** Open MPI tuned's segment size for large pipelined broadcasts. */
    public static final int NATIVE_SEGMENT_BYTES = 128 << 10;
    /**
     * Fraction: how much faster two trees must be predicted than the other schedules to be chosen.
     * Why: their gain is a shorter fill, and what the model leaves out (two streams each way per
     * participant, back-to-back calls hiding the chain's fill) costs them more where that gain is
     * small (docs/tuning.md).
     */
    static final double TWO_TREE_HANDICAP = 0.1;

    /**
     * Seconds a hop of the CUDA ring adds between two processes sharing one GPU: the GPU switches
     * between their contexts (no MPS). Measured on one H100 (IpcMapCost, 1 MiB): 157.6 us a hop
     * (copy, synchronize, token) between two processes against 16.3 us in one process; 172.1 against
     * 25.4 at 16 MiB (docs/results/gpu/h100-2026-11-26/hops.log; the H200 gave the same).
     */
    public static final double GPU_SWITCH_SECONDS = 141e-6;
    /**
     * Seconds a buffer-to-buffer call pays to map and unmap its neighbour's buffer (cudaIpcOpenMemHandle
     * then cudaIpcCloseMemHandle, the ranks in parallel). Measured on one H100: 43.1 + 34.1 us at 1 MiB,
     * 64.7 + 49.5 us at 16 MiB (docs/results/gpu/h100-2026-11-26/hops.log).
     */
    public static final double IPC_MAP_SECONDS = 77e-6;
    /** Bytes from which a device call goes buffer to buffer: the CUDA ring's {@code DIRECT_MIN_BYTES}. */
    public static final long DIRECT_FROM_BYTES = 32L << 20;

    private static final Map<Long, double[]> TREES = new ConcurrentHashMap<>();

    private final Calibration calibration;
    private final int cores;
    private final int gpus;

    /** A model that assumes a core and a GPU for every rank. */
    public CostModel(Calibration calibration) {
        this(calibration, Integer.MAX_VALUE);
    }

    /**
     * A model that assumes a GPU for every rank.
     *
     * @param cores cores of one host: where a flat tree puts more ranks on a host than it has cores,
     *        the copies of its sends (each keeping a sender and a receiver busy) share them
     */
    public CostModel(Calibration calibration, int cores) {
        this(calibration, cores, Integer.MAX_VALUE);
    }

    /**
     * @param cores as in {@link #CostModel(Calibration, int)}
     * @param gpus GPUs of one host (at least 1): where a node, or the host of virtual nodes, has more
     *        ranks, they share GPUs and every hop of a device ring pays {@link #GPU_SWITCH_SECONDS}
     */
    public CostModel(Calibration calibration, int cores, int gpus) {
        this.calibration = Objects.requireNonNull(calibration, "calibration");
        if (cores < 1 || gpus < 1) {
            throw new IllegalArgumentException("cores and gpus must be positive, got " + cores + ", " + gpus);
        }
        this.cores = cores;
        this.gpus = gpus;
    }

    /** Whether ranks of {@code shape} share a GPU: more ranks on a node (or the host of virtual nodes) than GPUs. */
    public boolean sharesGpu(ClusterShape shape) {
        return (shape.virtual() ? shape.ranks() : shape.maxNodeSize()) > gpus;
    }

    /** Seconds a hop of the device ring adds to its copy on {@code shape}: the GPU's context switch where ranks share it. */
    public double deviceHopSeconds(ClusterShape shape) {
        return sharesGpu(shape) ? GPU_SWITCH_SECONDS : 0;
    }

    /**
     * Predicted seconds of staging {@code bytes} of device memory through the host on {@code shape}:
     * device to pinned host at the root, Open MPI's broadcast of host memory, host to device at the
     * others, each copy of the whole message ({@code 2 * pcie(m) + native(m)}).
     */
    public double staging(long bytes, ClusterShape shape) {
        if (bytes <= 0) {
            return 0;
        }
        return 2 * calibration.link(LinkKind.PCIE).seconds(bytes) + nativeTime(bytes, shape, MemoryKind.HOST);
    }

    public Calibration calibration() {
        return calibration;
    }

    /**
     * The best choice of one search: predicted seconds for (algorithm, intra-node transport, chunk,
     * radix, the leaders' schedule).
     */
    public record Choice(
            Algorithm algorithm, IntraNode intra, int chunkBytes, int radix, TreeShape inter, double seconds) {}

    /**
     * Predicted seconds of broadcasting {@code bytes} with {@code algorithm} (not AUTO) in chunks of
     * {@code chunkBytes} (clamped to the message) and radix {@code radix} on {@code shape}, moving
     * chunks inside nodes with {@code intra} (RING or FANOUT; only the hierarchy uses it).
     */
    public double predict(
            Algorithm algorithm,
            IntraNode intra,
            long bytes,
            int chunkBytes,
            int radix,
            ClusterShape shape,
            MemoryKind memory) {
        return predict(algorithm, intra, TreeShape.KNOMIAL, bytes, chunkBytes, radix, shape, memory);
    }

    /** As {@link #predict(Algorithm, IntraNode, long, int, int, ClusterShape, MemoryKind)}, the leaders moving chunks down {@code inter}. */
    public double predict(
            Algorithm algorithm,
            IntraNode intra,
            TreeShape inter,
            long bytes,
            int chunkBytes,
            int radix,
            ClusterShape shape,
            MemoryKind memory) {
        if (bytes <= 0) {
            return 0;
        }
        if (chunkBytes < 1 || radix < 2) {
            throw new IllegalArgumentException(
                    "chunk must be positive and radix at least 2: " + chunkBytes + ", " + radix);
        }
        long c = Math.min(chunkBytes, bytes);
        long chunks = (bytes + c - 1) / c;
        return switch (algorithm) {
            case HIERARCHICAL -> hierarchical(intra, inter, c, chunks, radix, shape, memory);
            case KNOMIAL -> staged(flatTree(inter, c, chunks, radix, shape), shape.ranks() > 1, c, chunks, memory);
            case NATIVE -> nativeTime(bytes, shape, memory);
            case AUTO -> throw new IllegalArgumentException("predict needs a concrete algorithm");
        };
    }

    /** {@code T_ring = (S + n - 2) * (ts + c / b)}; 0 for a ring of one. */
    public static double ring(long chunks, long chunkBytes, int n, LinkCalibration link) {
        return n <= 1 ? 0 : (chunks + n - 2) * link.seconds(chunkBytes);
    }

    /** {@code F * step + (S - 1) * R * gap} for a segmented k-nomial tree over {@code n} participants. */
    public static double tree(long chunkBytes, long chunks, int n, int radix, LinkCalibration link) {
        if (n <= 1) {
            return 0;
        }
        double[] shape = treeShape(TreeShape.KNOMIAL, n, radix);
        return shape[0] * link.seconds(chunkBytes) + (chunks - 1) * shape[1] * link.gapSeconds(chunkBytes);
    }

    /**
     * A flat segmented tree over every rank of {@code shape}: {@link #tree}, unless the ranks of one
     * host outnumber its cores. Then each segment's {@code h - 1} transfers inside the host, two busy
     * processes each, share its cores, and the pipeline can go no faster than
     * {@code 2 (h - 1) / cores} steps per segment.
     */
    private double flatTree(TreeShape tree, long c, long chunks, int radix, ClusterShape shape) {
        int n = shape.ranks();
        if (n <= 1) {
            return 0;
        }
        LinkCalibration link = mpiLink(shape);
        double[] sends = treeShape(tree, n, radix);
        boolean oneHost = shape.nodes() == 1 || shape.virtual();
        int hostRanks = oneHost ? n : shape.maxNodeSize();
        double perSegment = hostRanks > cores ? Math.max(sends[1], 2.0 * (hostRanks - 1) / cores) : sends[1];
        double memory = oneHost ? cacheFactor(c, chunks * c, n) : 1;
        return memory * (sends[0] * link.seconds(c) + (chunks - 1) * perSegment * link.gapSeconds(c));
    }

    /**
     * How much slower a chunk's copies on one host are in a message of {@code m} bytes than in cache,
     * from the node curve of its {@code n} ranks: the stage at {@code m} over the stage at four chunks,
     * at least 1 (1 without a curve). The MPI link's ping-pong reuses one cache-hot buffer; a flat
     * tree over the host streams the whole message through memory like the node's own transports.
     */
    private double cacheFactor(long c, long m, int n) {
        NodeCurve curve = calibration.nodeCurve(IntraNode.FANOUT, n);
        curve = curve != null ? curve : calibration.nodeCurve(IntraNode.RING, n);
        return curve == null ? 1 : Math.max(1, curve.stage(c, m) / curve.stage(c, 4 * c));
    }

    /**
     * {fill sends, sends per chunk of the busiest participant} of a shape, remembered: the selector asks
     * for the same few trees often.
     */
    private static double[] treeShape(TreeShape tree, int n, int radix) {
        return TREES.computeIfAbsent(((long) tree.ordinal() << 40) | ((long) n << 8) | radix, key ->
                new double[] {tree.fillSends(n, radix), tree.busiestSendsPerChunk(n, radix)});
    }

    /** Sends, one after another, until the first segment has reached every participant of a k-nomial tree. */
    public static int fillSends(int n, int radix) {
        return TreeShape.KNOMIAL.fillSends(n, radix);
    }

    /** The k-nomial root's children: it sends every segment that many times. */
    public static int rootChildren(int n, int radix) {
        return (int) TreeShape.KNOMIAL.busiestSendsPerChunk(n, radix);
    }

    /**
     * The two-level pipeline. Where the calibration timed the whole two-level broadcast on this very
     * layout, that is the figure (scaled from its radix 2 to {@code radix} as the composed figures
     * scale): a node leader receiving from the network while it feeds its node shares the cores
     * with it, and a chunk past the network's eager limit waits for its receiver to come back to MPI;
     * composing the levels measured apart sees neither, and on 2 hosts of 2 ranks it priced 64 to
     * 256 KiB chunks 1.2 to 2.6 times too cheap. Elsewhere the levels are composed.
     */
    private double hierarchical(
            IntraNode intra, TreeShape inter, long c, long chunks, int radix, ClusterShape shape, MemoryKind memory) {
        NodeCurve measured = memory == MemoryKind.HOST ? calibration.twoLevelCurve(intra, shape) : null;
        if (measured == null) {
            return composed(intra, inter, c, chunks, radix, shape, memory);
        }
        // The curve was measured over a binomial tree among the leaders.
        double seconds = measured.fill(c) + (chunks - 1) * measured.stage(c, chunks * c);
        return radix == 2 && inter == TreeShape.KNOMIAL
                ? seconds
                : seconds
                        * composed(intra, inter, c, chunks, radix, shape, memory)
                        / composed(intra, TreeShape.KNOMIAL, c, chunks, 2, shape, memory);
    }

    /** The two-level pipeline from its levels: both fill times, then the slower stage per further chunk. */
    private double composed(
            IntraNode intra, TreeShape inter, long c, long chunks, int radix, ClusterShape shape, MemoryKind memory) {
        int nodes = shape.nodes();
        int n = shape.maxNodeSize();
        double intraFill = n > 1 ? intraFill(intra, c, n, memory) : 0;
        double intraStage = n > 1 ? intraStage(intra, c, chunks * c, n, memory) : 0;
        if (memory == MemoryKind.DEVICE && n > 1) {
            double hop = deviceHopSeconds(shape);
            intraFill += (n - 1) * hop + (chunks * c >= DIRECT_FROM_BYTES ? IPC_MAP_SECONDS : 0);
            intraStage += hop;
        }
        if (nodes == 1) {
            return intraFill + (chunks - 1) * intraStage;
        }
        LinkCalibration net = interNodeLink(shape);
        double[] tree = treeShape(inter, nodes, radix);
        double fill = tree[0] * net.seconds(c) + intraFill;
        double stage = Math.max(tree[1] * net.gapSeconds(c), intraStage);
        if (memory == MemoryKind.DEVICE) {
            double pcie = calibration.link(LinkKind.PCIE).seconds(c);
            fill += 2 * pcie;
            stage = Math.max(stage, pcie);
        }
        return fill + (chunks - 1) * stage;
    }

    /** Seconds until the first chunk of {@code c} bytes has reached every rank of a node of {@code n}. */
    public double intraFill(IntraNode intra, long c, int n, MemoryKind memory) {
        NodeCurve curve = curve(intra, n, memory);
        if (curve != null) {
            return curve.fill(c);
        }
        double step = intraLink(memory).seconds(c);
        return intra == IntraNode.FANOUT && memory == MemoryKind.HOST ? step : (n - 1) * step;
    }

    /**
     * Seconds each further chunk of {@code c} bytes adds inside a node of {@code n} once the pipeline
     * runs, in a message of about {@code m} bytes (whether the node's buffers stay in cache).
     */
    public double intraStage(IntraNode intra, long c, long m, int n, MemoryKind memory) {
        NodeCurve curve = curve(intra, n, memory);
        return curve != null ? curve.stage(c, m) : intraLink(memory).seconds(c);
    }

    private NodeCurve curve(IntraNode intra, int n, MemoryKind memory) {
        return memory == MemoryKind.HOST ? calibration.nodeCurve(intra, n) : null;
    }

    private LinkCalibration intraLink(MemoryKind memory) {
        return calibration.link(memory == MemoryKind.DEVICE ? LinkKind.CUDA_IPC : LinkKind.SHARED_MEMORY);
    }

    /** Device buffers of a flat tree go through host memory on each end of every hop. */
    private double staged(double seconds, boolean moves, long c, long chunks, MemoryKind memory) {
        if (memory != MemoryKind.DEVICE || !moves) {
            return seconds;
        }
        double pcie = calibration.link(LinkKind.PCIE).seconds(c);
        return seconds + (chunks + 1) * pcie;
    }

    private double nativeTime(long bytes, ClusterShape shape, MemoryKind memory) {
        if (memory == MemoryKind.DEVICE) {
            // Open MPI here is not CUDA-aware: native broadcasts device memory staged through the host.
            return staging(bytes, shape);
        }
        if (hasNativeCurve(shape)) {
            return Interpolation.logLog(calibration.nativeTimes(), bytes);
        }
        long c = Math.min(bytes, NATIVE_SEGMENT_BYTES);
        return flatTree(TreeShape.KNOMIAL, c, (bytes + c - 1) / c, 2, shape);
    }

    /** True when Open MPI's broadcast was measured on this very layout. */
    public boolean hasNativeCurve(ClusterShape shape) {
        return !calibration.nativeTimes().isEmpty() && shape.toString().equals(calibration.nativeLayout());
    }

    /** The link between node leaders: the network, or shared memory for virtual nodes. */
    public LinkCalibration interNodeLink(ClusterShape shape) {
        return calibration.link(shape.virtual() ? LinkKind.MPI_SHARED_MEMORY : LinkKind.NETWORK);
    }

    /** A flat tree's link: the slowest one it crosses. */
    private LinkCalibration mpiLink(ClusterShape shape) {
        return shape.nodes() > 1 ? interNodeLink(shape) : calibration.link(LinkKind.MPI_SHARED_MEMORY);
    }

    /**
     * Whether the plans' chunks cross a network known only as a run without a calibration knows it
     * (built-in figures, or the start-up and bandwidth the leaders measure at create): the model
     * cannot see the eager limit there, so chunks stay within it ({@link Candidates#NETWORK_EAGER_CHUNK_BYTES}).
     * A calibration's transfer curves show the step, and the simulator's links have none.
     */
    public boolean untimedNetwork(ClusterShape shape) {
        return shape.crossesNetwork() && calibration.link(LinkKind.NETWORK).uncalibrated();
    }

    /**
     * The fastest predicted (algorithm, intra-node transport, chunk, radix) for {@code bytes} among
     * the {@link Candidates#of candidates}. {@code algorithm}, {@code intra}, {@code chunkBytes} and
     * {@code radix} restrict the search when not AUTO / 0; chunks never exceed {@code maxChunk}. Ties
     * go to the earlier candidate, so every rank agrees.
     */
    public Choice best(
            long bytes,
            ClusterShape shape,
            MemoryKind memory,
            int maxChunk,
            Algorithm algorithm,
            IntraNode intra,
            int chunkBytes,
            int radix) {
        return best(bytes, shape, memory, maxChunk, algorithm, intra, null, chunkBytes, radix);
    }

    /**
     * As {@link #best(long, ClusterShape, MemoryKind, int, Algorithm, IntraNode, int, int)}, with the
     * leaders' schedule fixed to {@code inter}, or chosen where it is null.
     */
    public Choice best(
            long bytes,
            ClusterShape shape,
            MemoryKind memory,
            int maxChunk,
            Algorithm algorithm,
            IntraNode intra,
            TreeShape inter,
            int chunkBytes,
            int radix) {
        Choice best = null;
        double bestRank = Double.POSITIVE_INFINITY;
        for (Candidates.Candidate c : Candidates.of(
                bytes, shape, memory, maxChunk, algorithm, intra, inter, chunkBytes, radix, untimedNetwork(shape))) {
            double time = predict(c.algorithm(), c.intra(), c.inter(), bytes, c.chunkBytes(), c.radix(), shape, memory);
            double rank = c.inter() == TreeShape.TWO_TREE ? time * (1 + TWO_TREE_HANDICAP) : time;
            if (best == null || rank < bestRank) {
                best = new Choice(c.algorithm(), c.intra(), c.chunkBytes(), c.radix(), c.inter(), time);
                bestRank = rank;
            }
        }
        return best;
    }
}
