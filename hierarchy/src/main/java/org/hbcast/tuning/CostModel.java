package org.hbcast.tuning;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.hbcast.Algorithm;
import org.hbcast.mpi.KnomialTree;

/**
 * Predicted broadcast times from the calibrated start-up times and bandwidths of the links (the
 * formulas of DESIGN.md), and the best (algorithm, chunk, radix) among candidates. Pure: the same
 * calibration and arguments give the same answer on every rank.
 *
 * <p>With {@code S = ceil(m / c)} chunks and one transfer of a chunk over a link costing
 * {@code step = ts + c / b}:
 * <ul>
 * <li>ring of {@code n}: {@code (S + n - 2) * step};
 * <li>segmented k-nomial tree over {@code N}: {@code (F + (S - 1) * R) * step}, where {@code F} is the
 *     number of sends before the first segment reaches the last participant (sends farthest first;
 *     {@code (k - 1) * ceil(log_k N)} for a full tree) and {@code R} the root's child count: the root
 *     sends every segment {@code R} times. With {@code S = 1} this is the unsegmented tree;
 * <li>hierarchical: tree among leaders and ring inside the nodes overlapped over the same chunks:
 *     both fill times plus {@code (S - 1)} times the slower stage; device buffers add a PCIe copy
 *     per chunk at each end of the network hop, pipelined as one more stage;
 * <li>native: Open MPI's measured times on the calibrated layout when there are some, otherwise its
 *     segmented binomial tree (128 KiB segments) over the MPI links.
 * </ul>
 */
public final class CostModel {
    /** Smallest chunk the search tries (below it per-chunk overhead dominates everywhere). */
    public static final int MIN_CANDIDATE_CHUNK = 8 << 10;
    /** Radices the search tries, where the tree has more than two participants. */
    public static final int MAX_CANDIDATE_RADIX = 4;
    /** Open MPI tuned's segment size for large pipelined broadcasts. */
    public static final int NATIVE_SEGMENT_BYTES = 128 << 10;

    private static final Map<Long, int[]> TREES = new ConcurrentHashMap<>();

    private final Calibration calibration;

    public CostModel(Calibration calibration) {
        this.calibration = Objects.requireNonNull(calibration, "calibration");
    }

    public Calibration calibration() {
        return calibration;
    }

    /** The best choice of one search: predicted seconds for (algorithm, chunk, radix). */
    public record Choice(Algorithm algorithm, int chunkBytes, int radix, double seconds) {
    }

    /**
     * Predicted seconds of broadcasting {@code bytes} with {@code algorithm} (not AUTO) in chunks of
     * {@code chunkBytes} (clamped to the message) and radix {@code radix} on {@code shape}.
     */
    public double predict(Algorithm algorithm, long bytes, int chunkBytes, int radix, ClusterShape shape,
                          MemoryKind memory) {
        if (bytes <= 0) {
            return 0;
        }
        if (chunkBytes < 1 || radix < 2) {
            throw new IllegalArgumentException("chunk must be positive and radix at least 2: " + chunkBytes + ", " + radix);
        }
        long c = Math.min(chunkBytes, bytes);
        long chunks = (bytes + c - 1) / c;
        return switch (algorithm) {
            case HIERARCHICAL -> hierarchical(bytes, c, chunks, radix, shape, memory);
            case KNOMIAL -> staged(tree(c, chunks, shape.ranks(), radix, mpiLink(shape)), shape.ranks() > 1, c, chunks, memory);
            case NATIVE -> nativeTime(bytes, shape, memory);
            case AUTO -> throw new IllegalArgumentException("predict needs a concrete algorithm");
        };
    }

    /** {@code T_ring = (S + n - 2) * (ts + c / b)}; 0 for a ring of one. */
    public static double ring(long chunks, long chunkBytes, int n, LinkCalibration link) {
        return n <= 1 ? 0 : (chunks + n - 2) * link.seconds(chunkBytes);
    }

    /** The continuous optimum {@code c* = sqrt(m * ts * b / (n - 2))} of the ring, for {@code n > 2}. */
    public static double ringOptimalChunk(long bytes, int n, LinkCalibration link) {
        if (n <= 2) {
            throw new IllegalArgumentException("a ring of " + n + " has no interior optimum: one chunk is best");
        }
        return Math.sqrt(bytes * link.startupSeconds() * link.bytesPerSecond() / (n - 2));
    }

    /** {@code (F + (S - 1) * R) * step} for a segmented k-nomial tree over {@code n} participants. */
    public static double tree(long chunkBytes, long chunks, int n, int radix, LinkCalibration link) {
        if (n <= 1) {
            return 0;
        }
        int[] shape = treeShape(n, radix);
        return (shape[0] + (chunks - 1) * shape[1]) * link.seconds(chunkBytes);
    }

    /** {fill sends, root children} of a tree, remembered: the selector asks for the same few trees often. */
    private static int[] treeShape(int n, int radix) {
        return TREES.computeIfAbsent(((long) n << 8) | radix, key -> new int[] {fillSends(n, radix), rootChildren(n, radix)});
    }

    /** Sends, one after another, until the first segment has reached every participant. */
    public static int fillSends(int n, int radix) {
        int[] arrival = new int[n];
        int[] kids = new int[KnomialTree.maxChildren(n, radix)];
        int latest = 0;
        for (int rel = 0; rel < n; rel++) {
            int count = KnomialTree.children(rel, n, radix, kids);
            for (int j = 0; j < count; j++) {
                arrival[kids[j]] = arrival[rel] + j + 1;
                latest = Math.max(latest, arrival[kids[j]]);
            }
        }
        return latest;
    }

    public static int rootChildren(int n, int radix) {
        return n <= 1 ? 0 : KnomialTree.children(0, n, radix, new int[KnomialTree.maxChildren(n, radix)]);
    }

    private double hierarchical(long bytes, long c, long chunks, int radix, ClusterShape shape, MemoryKind memory) {
        int nodes = shape.nodes();
        int n = shape.maxNodeSize();
        LinkCalibration ringLink = calibration.link(memory == MemoryKind.DEVICE ? LinkKind.CUDA_IPC : LinkKind.SHARED_MEMORY);
        double ringStep = ringLink.seconds(c);
        if (nodes == 1) {
            return ring(chunks, c, n, ringLink);
        }
        LinkCalibration net = interNodeLink(shape);
        double netStep = net.seconds(c);
        int[] tree = treeShape(nodes, radix);
        double fill = tree[0] * netStep + (n - 1) * ringStep;
        double stage = Math.max(tree[1] * netStep, n > 1 ? ringStep : 0);
        if (memory == MemoryKind.DEVICE) {
            double pcie = calibration.link(LinkKind.PCIE).seconds(c);
            fill += 2 * pcie;
            stage = Math.max(stage, pcie);
        }
        return fill + (chunks - 1) * stage;
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
            // Open MPI here is not CUDA-aware: native cannot broadcast device memory.
            return Double.POSITIVE_INFINITY;
        }
        if (hasNativeCurve(shape)) {
            return Interpolation.logLog(calibration.nativeTimes(), bytes);
        }
        long c = Math.min(bytes, NATIVE_SEGMENT_BYTES);
        return tree(c, (bytes + c - 1) / c, shape.ranks(), 2, mpiLink(shape));
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

    /** The algorithms worth trying on {@code shape}: the hierarchy only where some node has a ring. */
    public static List<Algorithm> candidateAlgorithms(ClusterShape shape, MemoryKind memory) {
        List<Algorithm> list = new ArrayList<>();
        if (memory == MemoryKind.HOST) {
            list.add(Algorithm.NATIVE);
        }
        list.add(Algorithm.KNOMIAL);
        if (shape.maxNodeSize() > 1) {
            list.add(Algorithm.HIERARCHICAL);
        }
        return list;
    }

    /** Chunk sizes tried for {@code bytes}: powers of two from {@link #MIN_CANDIDATE_CHUNK} up to {@code maxChunk}, and the whole message when it fits. */
    public static List<Integer> candidateChunks(long bytes, int maxChunk) {
        List<Integer> list = new ArrayList<>();
        for (long c = MIN_CANDIDATE_CHUNK; c <= maxChunk && c < bytes; c *= 2) {
            list.add((int) c);
        }
        if (bytes <= maxChunk) {
            list.add((int) Math.max(bytes, 1));
        } else if (list.isEmpty()) {
            list.add(maxChunk);
        }
        return list;
    }

    /** Radices tried for a tree of {@code participants}: only 2 where the radix cannot matter. */
    public static List<Integer> candidateRadices(Algorithm algorithm, ClusterShape shape) {
        return candidateRadices(algorithm, shape, MAX_CANDIDATE_RADIX);
    }

    /** Radices 2..{@code maxRadix} that make a different tree on {@code shape}. */
    public static List<Integer> candidateRadices(Algorithm algorithm, ClusterShape shape, int maxRadix) {
        int participants = switch (algorithm) {
            case HIERARCHICAL -> shape.nodes();
            case KNOMIAL -> shape.ranks();
            default -> 1;
        };
        List<Integer> list = new ArrayList<>();
        for (int k = 2; k <= maxRadix && (k == 2 || k < participants); k++) {
            list.add(k);
        }
        return list;
    }

    /**
     * The fastest predicted (algorithm, chunk, radix) for {@code bytes}. {@code algorithm},
     * {@code chunkBytes} and {@code radix} restrict the search when not AUTO / 0; chunks never
     * exceed {@code maxChunk}. Ties go to the earlier candidate, so every rank agrees.
     */
    public Choice best(long bytes, ClusterShape shape, MemoryKind memory, int maxChunk,
                       Algorithm algorithm, int chunkBytes, int radix) {
        List<Algorithm> algorithms = algorithm == Algorithm.AUTO ? candidateAlgorithms(shape, memory) : List.of(algorithm);
        List<Integer> chunks = chunkBytes > 0 ? List.of(Math.min(chunkBytes, maxChunk)) : candidateChunks(bytes, maxChunk);
        Choice best = null;
        for (Algorithm a : algorithms) {
            List<Integer> radices = radix > 0 ? List.of(radix) : candidateRadices(a, shape);
            for (int c : a == Algorithm.NATIVE ? chunks.subList(chunks.size() - 1, chunks.size()) : chunks) {
                for (int k : a == Algorithm.NATIVE ? radices.subList(0, 1) : radices) {
                    double t = predict(a, bytes, c, k, shape, memory);
                    if (best == null || t < best.seconds()) {
                        best = new Choice(a, c, k, t);
                    }
                }
            }
        }
        return best;
    }
}
