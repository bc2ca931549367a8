package org.hbcast.tuning;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.hbcast.header.CallHeaders;
import org.hbcast.header.HeaderRelay;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.PlanChoices;
import org.hbcast.schedule.TreeShape;

/**
 * Which plans are candidates: the algorithms, intra-node transports, leaders' schedules, chunks and
 * radices worth considering for a size, a layout and a memory kind ({@link #of}, what {@link
 * CostModel#best} prices), and which of them {@code auto} times against each other in the run. Pure
 * functions of their arguments: every rank makes the same candidates. The {@code Selector} chooses
 * among them; the {@link CostModel} prices them.
 */
public final class Candidates {
    /** Smallest chunk the search tries (below it per-chunk overhead dominates everywhere). */
    public static final int MIN_CHUNK = 8 << 10;
    /** Radices the search tries, where the tree has more than two participants. */
    public static final int MAX_RADIX = 4;
    /**
     * Bytes: the largest chunk of a plan whose messages cross a network that no calibration timed by
     * size. Guarantees each chunk goes eagerly over Open MPI's TCP transport (64 KiB with its
     * headers); a larger one waits for its receiver to come back to MPI (rendezvous), which a
     * straight-line link model cannot show (docs/tuning.md).
     */
    public static final int NETWORK_EAGER_CHUNK_BYTES = (64 << 10) - 64;
    /**
     * Bytes from which {@code auto} runs Open MPI's {@code bcast}, untried, on virtual nodes whose ranks
     * share the host's cores: the call header's capacity there ({@link #headerBytes}), which carries
     * every smaller message on one host. Why: between virtual nodes a plan's bytes go through Open MPI's shared memory as native's
     * do, plus a stage of its own in each node. Where the ranks leave a core over ({@link
     * org.hbcast.stage.ProgressWait#forSharedCores}) the plans are tried as on real nodes. Measurements:
     * docs/tuning.md.
     */
    public static final long VIRTUAL_NATIVE_FROM = CallHeaders.inlineBytes(true);
    /**
     * Bytes: the most of a message that rides in its call header on one host whose ranks leave a core
     * of it over (see {@link #headerBytes}). There the plans' pipelines overlap the root's copy with
     * the readers' on cores of their own, and on 16 cores the fan-out ran 1 MiB at 1.6-3.9 times Open
     * MPI's speed: the header, which copies a message whole before its readers start, is not taken
     * past this untimed there. Measurements: docs/tuning.md.
     */
    public static final int SPARE_CORES_HEADER_BYTES = 512 << 10;
    /**
     * Bytes: the most of a message that rides in its call header between two real nodes whose ranks
     * outnumber their cores across a fast network ({@link #headerCarriesAllUntried}). Why: there Open
     * MPI's bcast behind the header's own network message ran 512 KiB-2 MiB at 0.46-0.80 of its speed
     * without one (hbcast's native plan with trusted counts, no header: 0.79-1.09), and every plan
     * slower; the header, carrying the message in its one network message and its rest, ran it at
     * 0.64-1.17 (the 2-host bed, a core per host: 512 KiB 0.61-0.74 -> 0.97-1.17 as users call it,
     * 0.61-0.80 -> 0.85-1.16 in OSU's loop; 2 MiB 0.57-0.59 -> 0.64-0.72 and 0.46-0.47 -> 0.62-0.67).
     * At 4 MiB it did no better (0.65-0.67 against 0.62-0.80), and each rank's relay holds two
     * buffers of this size. Measurements: docs/tuning.md.
     */
    public static final int CROWDED_NETWORK_HEADER_BYTES = 2 << 20;
    /**
     * Bytes from which {@code auto} starts from Open MPI's {@code bcast} (its incumbent: the trials
     * still time the plans against it, and one must beat it by their margin) on virtual nodes whose
     * ranks leave a core of the host over. Why: there the plans run the node's stage on cores of their
     * own and win at 1 MiB, but from 4 MiB Open MPI's {@code bcast} was faster (virtual 2+2 on 16
     * cores: 0.79-0.88 of its speed at 16 MiB in four launches), and a program's first calls run
     * the incumbent untried. Measurements: docs/tuning.md.
     */
    public static final long SPARE_CORES_NATIVE_FROM = 4 << 20;
    /**
     * Bytes past which {@code auto} starts from Open MPI's {@code bcast} (its incumbent, tried against
     * the plans) on real nodes whose ranks outnumber the cores they may run on, across a network that
     * carries at least {@link #FAST_NETWORK_SHARE} of shared memory's bandwidth: past the header's
     * first network message, which carries smaller ones untried. Why: there no level of the
     * hierarchy overlaps the other (a node leader receiving from the network and its node copying
     * take turns on one core), and the network saves the hierarchy little; on the 2-host bed (each
     * host on a core of its own, 2.06 GB/s between them) Open MPI's bcast behind the call's header
     * beat every plan from 64 KiB to 4 MiB but at 256-512 KiB, where it tied. Measurements:
     * docs/tuning.md.
     */
    public static final long CROWDED_NATIVE_ABOVE = HeaderRelay.FIRST_PAYLOAD;
    /**
     * The least share of the shared memory link's bandwidth at which the network counts as fast for
     * {@link #CROWDED_NATIVE_ABOVE}: the 2-host bed's measured link has 0.51 of the built-in shared
     * memory's, a shaped bed at 1 Gbit/s 0.03, where the hierarchy is 1.9-3.2 times Open MPI's speed.
     */
    public static final double FAST_NETWORK_SHARE = 0.25;
    /**
     * Bytes of the largest element a call carries ({@code MPI.DOUBLE_COMPLEX}): with the bindings'
     * {@code int} counts no message reaches {@code Integer.MAX_VALUE} times this.
     */
    public static final int LARGEST_ELEMENT_BYTES = 16;
    /** Bytes of the largest message a call can carry. */
    public static final long LARGEST_MESSAGE_BYTES = (long) Integer.MAX_VALUE * LARGEST_ELEMENT_BYTES;
    /**
     * The power-of-two bucket ({@code [2^c, 2^(c+1))} bytes) of the largest message a call can carry:
     * the selector plans no bucket past it, since each costs {@code create} the model's search
     * (docs/tuning.md).
     */
    public static final int LARGEST_SIZE_CLASS = 63 - Long.numberOfLeadingZeros(LARGEST_MESSAGE_BYTES);
    /** Largest size class tried in the run ({@code bytes <= 2^c}): that of the largest message a call can carry. */
    public static final int LARGEST_TRIED_CLASS = 64 - Long.numberOfLeadingZeros(LARGEST_MESSAGE_BYTES - 1);
    /**
     * Bytes above which the flat tree is tried in two shapes (the model's best and its runner-up),
     * across real nodes only. Why: the shapes differ in what the model leaves out; inside one host
     * they differ by less than the trials' noise (docs/tuning.md).
     */
    public static final long SECOND_SHAPE_ABOVE = 32 << 10;

    private Candidates() {}

    /** One candidate of a search: what the model prices. */
    public record Candidate(Algorithm algorithm, IntraNode intra, TreeShape inter, int chunkBytes, int radix) {}

    /**
     * Every candidate of one search for {@code bytes}, in the order ties are broken (the earlier
     * wins). {@code algorithm}, {@code intra}, {@code inter}, {@code chunkBytes} and {@code radix}
     * restrict it when not AUTO / null / 0; chunks never exceed {@code maxChunk}, and where the
     * network is untimed ({@link CostModel#untimedNetwork}) the tree's chunks stay within the eager
     * limit. Open MPI's {@code bcast} cuts its own segments: one candidate, the largest chunk. Only the
     * k-nomial tree has a radix.
     */
    public static List<Candidate> of(
            long bytes,
            ClusterShape shape,
            MemoryKind memory,
            int maxChunk,
            Algorithm algorithm,
            IntraNode intra,
            TreeShape inter,
            int chunkBytes,
            int radix,
            boolean untimedNetwork) {
        List<Algorithm> algorithms = algorithm == Algorithm.AUTO ? algorithms(shape, memory) : List.of(algorithm);
        List<Integer> chunks = chunkBytes > 0 ? List.of(Math.min(chunkBytes, maxChunk)) : chunks(bytes, maxChunk);
        List<Integer> networkChunks = chunkBytes > 0 || !untimedNetwork ? chunks : eagerChunks(chunks);
        List<Candidate> out = new ArrayList<>();
        for (Algorithm a : algorithms) {
            List<Integer> radices = radix > 0 ? List.of(radix) : radices(a, shape);
            List<Integer> sizes = a == Algorithm.NATIVE
                    ? chunks.subList(chunks.size() - 1, chunks.size())
                    : a == Algorithm.HIERARCHICAL || a == Algorithm.KNOMIAL ? networkChunks : chunks;
            List<IntraNode> transports =
                    a == Algorithm.HIERARCHICAL ? intra(shape, memory, intra) : List.of(IntraNode.RING);
            List<TreeShape> shapes = switch (a) {
                case HIERARCHICAL -> inter(shape, inter);
                case KNOMIAL -> flat(shape, inter);
                default -> List.of(TreeShape.KNOMIAL);
            };
            for (IntraNode t : transports) {
                for (TreeShape s : shapes) {
                    for (int c : sizes) {
                        for (int k :
                                a == Algorithm.NATIVE || s != TreeShape.KNOMIAL ? radices.subList(0, 1) : radices) {
                            out.add(new Candidate(a, t, s, c, k));
                        }
                    }
                }
            }
        }
        return out;
    }

    /**
     * The algorithms worth trying on {@code shape}: Open MPI's {@code bcast} (for device memory staged
     * through the host: device to host, its broadcast, host to device, so that a device call is never
     * planned slower than a program's own staging), the flat tree but for host memory on one node,
     * and the hierarchy only where some node has a ring.
     *
     * <p>Why not the flat tree on host memory on one node: there it is a tree of Open MPI's
     * point-to-point messages over the node's shared memory, which Open MPI's own {@code bcast} runs
     * without the JVM in between. The trials kept it in none of 89 verdicts on one node x 4; on one
     * node x 2 the model priced it a hair under the fan-out (one copy-sized step a chunk each, the
     * flat tree's start-up smaller) and chose it untried, and it ran 8-16 MiB at 0.64-0.92 of Open
     * MPI's speed where the node's own stage ran at 1.49-1.72 (docs/tuning.md).
     */
    public static List<Algorithm> algorithms(ClusterShape shape, MemoryKind memory) {
        List<Algorithm> list = new ArrayList<>();
        list.add(Algorithm.NATIVE);
        if (shape.nodes() > 1 || memory == MemoryKind.DEVICE) {
            list.add(Algorithm.KNOMIAL);
        }
        if (shape.maxNodeSize() > 1) {
            list.add(Algorithm.HIERARCHICAL);
        }
        return list;
    }

    /**
     * The intra-node transports worth trying: {@code requested} when it names one, else the ring and,
     * for host memory on nodes of more than one rank, the fan-out (device buffers ride the CUDA ring).
     */
    public static List<IntraNode> intra(ClusterShape shape, MemoryKind memory, IntraNode requested) {
        if (requested != IntraNode.AUTO) {
            return List.of(memory == MemoryKind.DEVICE ? IntraNode.RING : requested);
        }
        return memory == MemoryKind.HOST && shape.maxNodeSize() > 1
                ? List.of(IntraNode.RING, IntraNode.FANOUT)
                : List.of(IntraNode.RING);
    }

    /**
     * The leaders' schedules worth trying: {@code requested} when it names one, else the k-nomial tree,
     * and from three nodes on (with two, every shape is the same single hop) the chain and the two trees.
     */
    public static List<TreeShape> inter(ClusterShape shape, TreeShape requested) {
        return shapes(shape.nodes(), requested);
    }

    /** The flat tree's shapes worth trying over every rank of {@code shape}, as {@link #inter} over ranks. */
    public static List<TreeShape> flat(ClusterShape shape, TreeShape requested) {
        return shapes(shape.ranks(), requested);
    }

    private static List<TreeShape> shapes(int participants, TreeShape requested) {
        if (requested != null) {
            return List.of(requested);
        }
        return participants > 2
                ? List.of(TreeShape.KNOMIAL, TreeShape.CHAIN, TreeShape.TWO_TREE)
                : List.of(TreeShape.KNOMIAL);
    }

    /** Chunk sizes tried for {@code bytes}: powers of two from {@link #MIN_CHUNK} up to {@code maxChunk}, and the whole message when it fits. */
    public static List<Integer> chunks(long bytes, int maxChunk) {
        List<Integer> list = new ArrayList<>();
        for (long c = MIN_CHUNK; c <= maxChunk && c < bytes; c *= 2) {
            list.add((int) c);
        }
        if (bytes <= maxChunk) {
            list.add((int) Math.max(bytes, 1));
        } else if (list.isEmpty()) {
            list.add(maxChunk);
        }
        return list;
    }

    /** {@code chunks} (ascending) with those past {@link #NETWORK_EAGER_CHUNK_BYTES} replaced by it. */
    public static List<Integer> eagerChunks(List<Integer> chunks) {
        List<Integer> list = new ArrayList<>();
        for (int c : chunks) {
            int capped = Math.min(c, NETWORK_EAGER_CHUNK_BYTES);
            if (list.isEmpty() || list.get(list.size() - 1) != capped) {
                list.add(capped);
            }
        }
        return list;
    }

    /** Radices tried for a tree of {@code participants}: only 2 where the radix cannot matter. */
    public static List<Integer> radices(Algorithm algorithm, ClusterShape shape) {
        return radices(algorithm, shape, MAX_RADIX);
    }

    /** Radices 2..{@code maxRadix} that make a different tree on {@code shape}. */
    public static List<Integer> radices(Algorithm algorithm, ClusterShape shape, int maxRadix) {
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
     * The most bytes of a message that ride in its call header on {@code shape}: across a network
     * {@link CallHeaders#NETWORK_INLINE_BYTES}, or {@link #CROWDED_NETWORK_HEADER_BYTES} where the
     * header carries every message it can untried; on one host whose ranks take every core of it the
     * board's whole {@link CallHeaders#inlineBytes(boolean) capacity} (4 MiB), else {@link
     * #SPARE_CORES_HEADER_BYTES}. Why: where ranks outnumber or match the cores, the root that posts a
     * whole message on the board goes on to its next call while the readers copy, where the fan-out
     * hands each chunk between ranks that wait for the scheduler and Open MPI's bcast behind the
     * header meets the scheduler twice: on this 2-core machine the header ran 1-4 MiB at 1.0-2.7 times
     * Open MPI's speed on one node x 4, virtual 2+2 and one node x 2, where those ran 0.3-0.9.
     * Measurements: docs/tuning.md.
     *
     * @param cpus the host's cores (the fingerprint's, agreed); 0 where not known
     * @param carriesAll {@link #headerCarriesAllUntried} on this layout (two real nodes whose ranks
     *     outnumber their cores across a fast network)
     */
    public static long headerBytes(ClusterShape shape, int cpus, boolean carriesAll) {
        if (shape.crossesNetwork()) {
            return carriesAll ? CROWDED_NETWORK_HEADER_BYTES : CallHeaders.NETWORK_INLINE_BYTES;
        }
        return cpus > 0 && shape.ranks() >= cpus ? CallHeaders.inlineBytes(true) : SPARE_CORES_HEADER_BYTES;
    }

    /**
     * Whether {@code auto} runs Open MPI's {@code bcast} untried at {@code size} because the nodes
     * are virtual and their ranks take every core of the host ({@link #VIRTUAL_NATIVE_FROM}).
     *
     * @param cpus the host's cores
     */
    public static boolean nativeOnVirtualNodes(Algorithm requested, ClusterShape shape, int cpus, long size) {
        return requested == Algorithm.AUTO
                && shape.virtual()
                && shape.nodes() > 1
                && shape.ranks() >= cpus
                && size >= VIRTUAL_NATIVE_FROM;
    }

    /**
     * Whether {@code auto} starts from Open MPI's {@code bcast} at {@code size}, tried against the
     * plans, because the nodes are virtual and their ranks leave a core of the host over ({@link
     * #SPARE_CORES_NATIVE_FROM}). Where they take every core, {@link #nativeOnVirtualNodes} runs it
     * untried instead.
     *
     * @param cpus the host's cores
     */
    public static boolean nativeFirstWithSpareCores(Algorithm requested, ClusterShape shape, int cpus, long size) {
        return requested == Algorithm.AUTO
                && shape.virtual()
                && shape.nodes() > 1
                && shape.ranks() < cpus
                && size >= SPARE_CORES_NATIVE_FROM;
    }

    /**
     * Whether {@code auto} starts from Open MPI's {@code bcast} at {@code size}, tried against the
     * plans, because the ranks of a real node outnumber the cores they may run on and the network is
     * fast ({@link #CROWDED_NATIVE_ABOVE}).
     *
     * @param usableCores the fewest cores a rank may run on, agreed; 0 where not known
     */
    public static boolean nativeFirstOnCrowdedHosts(
            Algorithm requested, ClusterShape shape, int usableCores, Calibration calibration, long size) {
        return requested == Algorithm.AUTO
                && crowdedAcrossFastNetwork(shape, usableCores, calibration)
                && size > CROWDED_NATIVE_ABOVE;
    }

    /**
     * Whether {@code auto}'s call header carries, untried, every message it can across a network
     * ({@link #CROWDED_NETWORK_HEADER_BYTES} there), not only those of its first network message: where
     * there are two real nodes, their ranks outnumber the cores they may run on and the network is
     * fast (as for {@link #nativeFirstOnCrowdedHosts}). Why: between two nodes the header is one
     * message per call from leader to leader, where Open MPI's bcast behind it adds a hop and a
     * rendezvous in series, and every plan's pipeline hands its chunks between ranks that take turns
     * on a core. On the 2-host bed (each host on a core of its own) the header ran at 1.25-2.8 times
     * Open MPI's speed at 64-256 KiB, where native behind it ran at 0.58-0.96; across a slow network
     * (the same bed at 1 Gbit/s) a pipelined plan overlaps the node's copies with the link and was
     * 3-9% faster at 128-256 KiB. Measurements: docs/tuning.md.
     *
     * @param usableCores the fewest cores a rank may run on, agreed; 0 where not known
     */
    public static boolean headerCarriesAllUntried(
            Algorithm requested, ClusterShape shape, int usableCores, Calibration calibration) {
        return requested == Algorithm.AUTO
                && shape.nodes() == 2
                && crowdedAcrossFastNetwork(shape, usableCores, calibration);
    }

    /**
     * Real nodes across a network whose ranks outnumber the cores they may run on, the network carrying
     * at least {@link #FAST_NETWORK_SHARE} of shared memory's bandwidth.
     */
    private static boolean crowdedAcrossFastNetwork(ClusterShape shape, int usableCores, Calibration calibration) {
        return shape.crossesNetwork()
                && usableCores > 0
                && shape.maxNodeSize() > usableCores
                && calibration.link(LinkKind.NETWORK).bytesPerSecond()
                        >= FAST_NETWORK_SHARE
                                * calibration.link(LinkKind.SHARED_MEMORY).bytesPerSecond();
    }

    /**
     * Whether {@code auto} times plans against each other for size class {@code c} ({@code [2^c,
     * 2^(c+1))}) in the run: when the options allow it and leave the algorithm open, and no tuning
     * table governs the class. A class is left untried when every size in it runs native
     * ({@link #nativeOnVirtualNodes}, asked for its largest size).
     *
     * @param firstTableBytes the tuning table's smallest size, {@link Long#MAX_VALUE} without a table
     */
    public static boolean tried(PlanChoices options, ClusterShape shape, int cpus, int c, long firstTableBytes) {
        return options.trials()
                && options.algorithm() == Algorithm.AUTO
                && shape.ranks() > 1
                && c <= LARGEST_TRIED_CLASS
                && (1L << c) < firstTableBytes
                && !nativeOnVirtualNodes(options.algorithm(), shape, cpus, (1L << c) - 1);
    }

    /**
     * The algorithm and transport pairs the trials time, in order: each algorithm of {@link
     * #algorithms} on host memory, the hierarchy with each transport of {@link #intra} that
     * {@code planned} (a plan chosen without trying uses it) or, without node curves, every one;
     * less those {@link #leftOutOnOneNode}. The selector times the model's best of each, and the flat
     * tree's runner-up shape past {@link #SECOND_SHAPE_ABOVE} ({@link #secondFlatShapes}).
     *
     * <p>Transports inside nodes: where the calibration measured them ({@link NodeCurve}s), only those
     * some chosen plan uses, since connecting another costs every {@code create} its shared memory
     * and handshake (about 30 ms on one node x 4 here, paid by a program that makes communicators by
     * the thousand) and connecting it on first use would be a collective without a timeout inside a
     * call; without node curves the model's choice between them is a guess, and both are tried. Open
     * MPI's own {@code bcast} in every class: on built-in figures the model misjudges it by more than
     * the plans differ (on virtual nodes of one host it priced native at 179 us for 256 KiB, where it
     * takes 60 us and the plan it chose 100), and a program must never run slower than native for
     * want of trying it. A call that runs native waits as Open MPI does, without hbcast's timeout, as
     * where the model chose it. On a single node only Open MPI's {@code bcast}, the fan-out and the
     * model's choice.
     *
     * <p>Where the hosts are crowded and the network fast ({@link #nativeFirstOnCrowdedHosts} at this
     * size) the hierarchy is left out unless chosen ({@link #leftOutOnCrowdedHosts}).
     *
     * @param chosen the algorithm and transport {@code auto} chooses without trying at this size
     * @param crowded whether {@link #nativeFirstOnCrowdedHosts} holds at this size
     */
    public static List<Candidate> trialKinds(
            ClusterShape shape,
            IntraNode requested,
            Predicate<IntraNode> planned,
            boolean nodeCurves,
            Algorithm chosenAlgorithm,
            IntraNode chosenIntra,
            boolean crowded) {
        List<Candidate> out = new ArrayList<>();
        for (Algorithm a : algorithms(shape, MemoryKind.HOST)) {
            for (IntraNode t : a == Algorithm.HIERARCHICAL
                    ? intra(shape, MemoryKind.HOST, requested).stream()
                            .filter(t -> planned.test(t) || !nodeCurves)
                            .toList()
                    : List.of(IntraNode.RING)) {
                if (!leftOutOnOneNode(shape, chosenAlgorithm, chosenIntra, a, t)
                        && !leftOutOnCrowdedHosts(crowded, chosenAlgorithm, chosenIntra, a, t)) {
                    out.add(new Candidate(a, t, TreeShape.KNOMIAL, 0, 0));
                }
            }
        }
        return out;
    }

    /**
     * Whether the trials leave a plan out on a single node (virtual nodes play several, and keep it):
     * the ring, unless the model chose it, so that the incumbent is always among the options (the
     * flat tree is no candidate there: {@link #algorithms}). The ring copies each byte through every
     * rank's inbox, twice the fan-out's copies for the same broadcast (one write into the node's
     * slots, one read out of them by each other rank): on one node x 4 it ran at 0.43-1.0 of Open
     * MPI's speed at 512 KiB-4 MiB where the fan-out ran at 1.2-1.8, and was kept in 2 of 89
     * verdicts. Each option's first block is cold (the ring's 4-16 ms for four calls), and the trials
     * fill a program's first blocks.
     */
    public static boolean leftOutOnOneNode(
            ClusterShape shape, Algorithm chosenAlgorithm, IntraNode chosenIntra, Algorithm a, IntraNode t) {
        if (shape.nodes() != 1) {
            return false;
        }
        return !isChosen(chosenAlgorithm, chosenIntra, a, t) && a == Algorithm.HIERARCHICAL && t == IntraNode.RING;
    }

    /** Whether {@code a} with transport {@code t} is the model's choice (the transport counts for the hierarchy only). */
    private static boolean isChosen(Algorithm chosenAlgorithm, IntraNode chosenIntra, Algorithm a, IntraNode t) {
        return chosenAlgorithm == a && (a != Algorithm.HIERARCHICAL || chosenIntra == t);
    }

    /**
     * Whether the trials leave the hierarchy's plan with transport {@code t} out where hosts are
     * crowded across a fast network ({@code crowded}: {@link #nativeFirstOnCrowdedHosts} at the size),
     * unless the model chose it. There a node's leader and its other ranks take turns on a core, and
     * a pipeline inside the node, whose every chunk passes from one to the other, runs back to back
     * far slower than its blocks in the trials show: on the 2-host bed (each host on a core of its
     * own) create's trials kept the fan-out at 64 KiB in 3 of 4 launches, where the program's calls
     * back to back then took 0.71, 0.88 and 0.11 ms each, and in an OSU launch 0.39 ms against Open
     * MPI's 0.10; under OSU's loop (medians of 3 runs, plans forced) the fan-out ran at 0.52-0.70 and
     * the ring at 0.24-0.63 of Open MPI's bcast at 64-256 KiB, and at 512 KiB-1 MiB, where they ran
     * at 1.06-1.36, the flat tree, still tried, ran at 1.54-1.61. Leaving them out also leaves their
     * shared memory unconnected at {@code create} where no chosen plan uses it.
     */
    public static boolean leftOutOnCrowdedHosts(
            boolean crowded, Algorithm chosenAlgorithm, IntraNode chosenIntra, Algorithm a, IntraNode t) {
        return crowded && a == Algorithm.HIERARCHICAL && !isChosen(chosenAlgorithm, chosenIntra, a, t);
    }

    /**
     * The flat tree's shapes other than {@code best} among which the trials' runner-up is sought: past
     * {@link #SECOND_SHAPE_ABOVE}, across real nodes, the options leaving the shape open; else none.
     */
    public static List<TreeShape> secondFlatShapes(long size, ClusterShape shape, TreeShape requested, TreeShape best) {
        if (size <= SECOND_SHAPE_ABOVE || !shape.crossesNetwork() || requested != null) {
            return List.of();
        }
        return flat(shape, null).stream().filter(s -> s != best).toList();
    }

    /**
     * Whether {@code auto} times device plans against each other for size class {@code c} in the run:
     * as {@link #tried} for host memory, without its host-only exceptions (tuning tables time host
     * memory only, and on virtual nodes a device plan moves GPU to GPU inside a node, not through the
     * shared memory Open MPI's {@code bcast} uses).
     */
    public static boolean triedOnDevice(PlanChoices options, ClusterShape shape, int c) {
        return options.trials()
                && options.algorithm() == Algorithm.AUTO
                && shape.ranks() > 1
                && c <= LARGEST_TRIED_CLASS;
    }

    /**
     * The algorithms the trials time for device memory, in order: each of {@link #algorithms} for
     * device memory (Open MPI's {@code bcast} staged through the host always: a device call must
     * never run slower than a program's own staging for want of trying it), less the flat tree on a
     * single node unless the model chose it (for host memory it is no candidate there at all: {@link
     * #algorithms}; for device memory it stages every rank's copy and runs Open MPI's point-to-point
     * messages where staging runs its {@code bcast}). Device
     * plans ride the CUDA ring inside nodes, one transport, so one plan per algorithm.
     *
     * @param chosen the algorithm {@code auto} chooses for device memory without trying at this size
     */
    public static List<Algorithm> deviceTrialAlgorithms(ClusterShape shape, Algorithm chosen) {
        List<Algorithm> out = new ArrayList<>();
        for (Algorithm a : algorithms(shape, MemoryKind.DEVICE)) {
            if (a != Algorithm.KNOMIAL || a == chosen || shape.nodes() > 1) {
                out.add(a);
            }
        }
        return out;
    }
}
