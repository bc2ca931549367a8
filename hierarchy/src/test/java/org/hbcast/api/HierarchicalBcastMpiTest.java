package org.hbcast.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import mpi.Intracomm;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.BcastOptions.TreeShape;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.Payload;
import org.hbcast.testing.OnRanks;
import org.hbcast.testing.Ranks;

/**
 * The correctness matrix of the host broadcast on real MPI launches; every rank checks every call
 * byte by byte (guard zone included), each call one case. Arguments: {@code roots=all|ends},
 * {@code medium=all|few}, {@code large=no|yes|all}, {@code algorithms=hierarchical,knomial}.
 *
 * <p>Launches are the suite's cost (a JVM per rank): where layouts have the same number of ranks, or a
 * launch's cases differ only in the leaders' schedule or the node's transport, one launch runs them one
 * after the other as {@link Variant}s, each an instance created with its virtual nodes, schedule and
 * transport as options in code, which is what the environment's {@code HBCAST_NODE_SIZES},
 * {@code HBCAST_INTER} and {@code HBCAST_INTRA} set.
 */
class HierarchicalBcastMpiTest {
    private static final String CHUNK = "HBCAST_CHUNK_BYTES=4096";
    private static final int MIB = 1 << 20;

    @OnRanks(
            value = {"1", "2", "3", "4"},
            env = CHUNK,
            args = "roots=all")
    void oneNodeEveryRoot(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    @OnRanks(
            value = "8",
            env = CHUNK,
            args = {"roots=ends", "medium=few"})
    void oneNodeOfEight(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    /**
     * Virtual nodes of 2+2 and 1+1+1+1 (an instance on the same launch) from every root, and 3+3
     * from its ends (a leader and a last member: every root of 3+3 is one of the roles the others
     * show, and six roots cost the suite 17 s).
     */
    @OnRanks(value = "2,2", env = CHUNK, args = "roots=all")
    @OnRanks(value = "3,3", env = CHUNK, args = "roots=ends")
    void smallVirtualLayouts(Ranks ranks) throws Exception {
        matrix(
                ranks,
                ranks.layout().equals("2,2")
                        ? List.of(Variant.AS_LAUNCHED, Variant.nodes("1,1,1,1"))
                        : List.of(Variant.AS_LAUNCHED));
    }

    @OnRanks(
            value = {"3,3,3", "8,3,3"},
            env = CHUNK,
            args = {"roots=ends", "medium=few"})
    void largeVirtualLayouts(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    @OnRanks(
            value = "2,2",
            args = {"roots=ends", "medium=few", "large=yes"})
    void largeMessagesOnTwoVirtualNodes(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    @OnRanks(
            value = "1,2",
            args = {"roots=ends", "medium=few", "large=all", "algorithms=hierarchical"})
    void thirtyTwoMebibytesAndFiveElementsOfEveryDatatype(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    @OnRanks(
            value = {"bed 2x3", "bed 3,2,1"},
            env = CHUNK,
            args = {"roots=all", "medium=few"})
    void testBeds(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    /**
     * A network-bound bed as the many-nodes benchmarks use (every host link shaped to 1 Gbit/s, uneven
     * hosts of 2+1+1): each leaders' schedule with each transport inside the node, every root, one
     * instance per pair on one launch.
     */
    @OnRanks(value = "bed 2,1,1", netem = "rate 1gbit", env = CHUNK)
    void shapedTestBedOfUnevenHostsEveryScheduleAndRoot(Ranks ranks) throws Exception {
        List<Variant> variants = new ArrayList<>();
        for (TreeShape inter : TreeShape.values()) {
            for (IntraNode intra : List.of(IntraNode.RING, IntraNode.FANOUT)) {
                variants.add(new Variant(null, inter, intra));
            }
        }
        everyRootHierarchical(ranks, variants);
    }

    /** The fan-out on one virtual node of four, on 3+3, and on 1+3+2 as an instance on the 3+3 launch. */
    @OnRanks(
            value = {"nodes 4", "3,3"},
            env = {CHUNK, "HBCAST_INTRA=fanout"},
            args = {"roots=all", "medium=few"})
    void nodeFanOutEveryRoot(Ranks ranks) throws Exception {
        matrix(
                ranks,
                ranks.layout().equals("3,3")
                        ? List.of(Variant.AS_LAUNCHED, Variant.nodes("1,3,2"))
                        : List.of(Variant.AS_LAUNCHED));
    }

    /** The leaders' chain and two trees: uneven nodes, every root, counts around the chunks, both transports. */
    @OnRanks(
            value = "1,3,2,1",
            env = {CHUNK, "HBCAST_INTER=chain", "HBCAST_INTRA=ring"},
            // Seven ranks as 2+1+2+1+1 down two trees: an instance of its own on the same launch.
            args = "also=2,1,2,1,1/two-tree/ring")
    @OnRanks(
            value = "3,1,2",
            env = {CHUNK, "HBCAST_INTER=two-tree", "HBCAST_INTRA=fanout"})
    @OnRanks(
            value = "2,2,1",
            env = {CHUNK, "HBCAST_INTER=chain", "HBCAST_INTRA=fanout"})
    void leadersSchedulesEveryRoot(Ranks ranks) throws Exception {
        everyRootHierarchical(ranks, Variant.launchedAndAlso(ranks));
    }

    /** The flat tree over every rank down a chain and two trees: every root, counts around the chunks. */
    @OnRanks(
            value = "2,3",
            env = {CHUNK, "HBCAST_INTER=chain"},
            // Five ranks as 1+2+2 down two trees: an instance of its own on the same launch.
            args = {"roots=all", "medium=few", "algorithms=knomial", "also=1,2,2/two-tree/-"})
    void flatTreeShapesEveryRoot(Ranks ranks) throws Exception {
        matrix(ranks, Variant.launchedAndAlso(ranks));
    }

    @OnRanks(value = "3,2", env = "HBCAST_CHUNK_BYTES=65536", args = "calls=200")
    void twoHundredRandomBackToBackCalls(Ranks ranks) throws Exception {
        random(ranks);
    }

    /**
     * Six ranks twice: 2+1+1+2 down two trees in chunks of 8 KiB (120 calls), then 4+2 through the
     * fan-out in chunks of 64 KiB (150 calls), each its own instances.
     */
    @OnRanks(value = "2,1,1,2")
    void randomBackToBackCallsDownTwoTreesAndThroughTheFanOut(Ranks ranks) throws Exception {
        BcastOptions defaults = BcastOptions.defaults();
        random(ranks, defaults.withChunkBytes(8192).withInter(TreeShape.TWO_TREE), 120, 0);
        random(ranks, defaults.withChunkBytes(65536).withNodeSizes("4,2").withIntra(IntraNode.FANOUT), 150, 1_000_000);
    }

    /** Two instances on the halves of a split communicator and one on the whole, their calls interleaved. */
    @OnRanks(value = "3,3", args = "calls=40")
    void twoInstancesOnSplitCommunicatorsInterleaved(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        int rank = ranks.rank();
        Intracomm half = world.split(rank % 2, rank);
        Random rnd = new Random(7);
        int calls = ranks.intArg("calls", 40);
        ranks.plan(2 * calls);
        try (HierarchicalBcast whole = HierarchicalBcast.create(world);
                HierarchicalBcast mine = HierarchicalBcast.create(half)) {
            for (int i = 1; i <= calls; i++) {
                int count = 1 + rnd.nextInt(3 * MIB);
                int halfRoot = rnd.nextInt(half.getSize());
                int worldRoot = rnd.nextInt(world.getSize());
                // Both halves use the same seeds, so each half checks its own broadcast.
                Broadcasts.check(
                        ranks.report(), mine, half, Payload.Kind.BUFFER, ElementType.BYTE, count, halfRoot, 1000 + i);
                Broadcasts.check(
                        ranks.report(),
                        whole,
                        world,
                        Payload.Kind.ARRAY,
                        ElementType.INT,
                        count / 4,
                        worldRoot,
                        2000 + i);
            }
        } finally {
            half.free();
        }
    }

    /** The hierarchy per variant: every root, few counts. */
    private static void everyRootHierarchical(Ranks ranks, List<Variant> variants) throws Exception {
        for (int v = 0; v < variants.size(); v++) {
            matrix(ranks, variants, v, "all", "few", "no", List.of(Algorithm.HIERARCHICAL));
        }
    }

    private static void matrix(Ranks ranks) throws Exception {
        matrix(ranks, List.of(Variant.AS_LAUNCHED));
    }

    private static void matrix(Ranks ranks, List<Variant> variants) throws Exception {
        List<Algorithm> algorithms = new ArrayList<>();
        for (String s : ranks.arg("algorithms", "hierarchical,knomial").split(",")) {
            algorithms.add(Algorithm.parse(s));
        }
        for (int v = 0; v < variants.size(); v++) {
            matrix(
                    ranks,
                    variants,
                    v,
                    ranks.arg("roots", "all"),
                    ranks.arg("medium", "all"),
                    ranks.arg("large", "no"),
                    algorithms);
        }
    }

    /**
     * Options of one instance on a launch: virtual nodes, leaders' schedule and node transport, each
     * as launched (the environment's) where null.
     */
    private record Variant(String nodes, TreeShape inter, IntraNode intra) {
        static final Variant AS_LAUNCHED = new Variant(null, null, null);

        static Variant nodes(String sizes) {
            return new Variant(sizes, null, null);
        }

        /** The launch's own settings, then {@code also=NODES/INTER/INTRA} ({@code -} for as launched). */
        static List<Variant> launchedAndAlso(Ranks ranks) {
            String also = ranks.arg("also", null);
            if (also == null) {
                return List.of(AS_LAUNCHED);
            }
            String[] f = also.split("/", -1);
            if (f.length != 3) {
                throw new IllegalArgumentException("also wants NODES/INTER/INTRA, got '" + also + "'");
            }
            return List.of(
                    AS_LAUNCHED,
                    new Variant(
                            f[0].equals("-") ? null : f[0],
                            f[1].equals("-") ? null : TreeShape.parse("also", f[1]),
                            f[2].equals("-") ? null : IntraNode.parse("also", f[2])));
        }

        BcastOptions options() {
            BcastOptions o = BcastOptions.defaults();
            o = nodes == null ? o : o.withNodeSizes(nodes);
            o = inter == null ? o : o.withInter(inter);
            return intra == null ? o : o.withIntra(intra);
        }

        @Override
        public String toString() {
            return (nodes == null ? "nodes as launched" : "nodes " + nodes) + ", inter "
                    + (inter == null ? "as launched" : inter) + ", intra " + (intra == null ? "as launched" : intra);
        }
    }

    /** One broadcast of a matrix: its container, datatype, count and root. */
    private record Call(Payload.Kind kind, ElementType type, int count, int root) {}

    /**
     * Per algorithm: counts 0, 1, 7, chunk-1, chunk, chunk+1 of every datatype and container from
     * every root of {@code roots}; 1 MiB+13 elements of every datatype ({@code medium=all}) or of two,
     * as array and typed buffer; 32 MiB and five elements as array and direct buffer, of bytes
     * ({@code large=yes}) or of every datatype ({@code large=all}). Figures {@code chunk <algorithm>}
     * ({@code chunk <algorithm> variant <v>} past the first variant); calls of variant {@code v} are
     * numbered from {@code v * 1,000,000}, and its note {@code variant <v>} says what it is.
     */
    private static void matrix(
            Ranks ranks,
            List<Variant> variants,
            int v,
            String rootSpec,
            String medium,
            String large,
            List<Algorithm> algorithms)
            throws Exception {
        int size = ranks.size();
        List<Integer> roots = Broadcasts.roots(rootSpec, size);
        BcastOptions base = variants.get(v).options();
        ranks.note("variant " + v, variants.get(v).toString());
        int calls = v * 1_000_000;
        for (Algorithm algorithm : algorithms) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(ranks.world(), base.withAlgorithm(algorithm))) {
                // Sizes around the chunk the plan of a 256 KiB message cuts at.
                int chunk = hb.plan(base.chunkBytes() != 0 ? base.chunkBytes() : 256 << 10)
                        .chunkBytes();
                ranks.figure("chunk " + algorithm + (v == 0 ? "" : " variant " + v), chunk);
                List<Call> matrix = new ArrayList<>();
                for (ElementType type : ElementType.values()) {
                    int c = chunk / type.bytes();
                    for (Payload.Kind kind : Payload.Kind.values()) {
                        for (int count : new int[] {0, 1, 7, c - 1, c, c + 1}) {
                            for (int root : roots) {
                                matrix.add(new Call(kind, type, count, root));
                            }
                        }
                    }
                }
                for (ElementType type : ElementType.values()) {
                    if (medium.equals("all") || type == ElementType.BYTE || type == ElementType.DOUBLE_COMPLEX) {
                        for (Payload.Kind kind : new Payload.Kind[] {Payload.Kind.ARRAY, Payload.Kind.TYPED}) {
                            matrix.add(new Call(kind, type, MIB + 13, size - 1));
                        }
                    }
                }
                for (ElementType type : ElementType.values()) {
                    if (large.equals("all") || large.equals("yes") && type == ElementType.BYTE) {
                        // 32 MiB and five elements of each type: many chunks and an odd tail in every element
                        // size, without moving 512 MiB for the widest.
                        int count = 32 * MIB / type.bytes() + 5;
                        matrix.add(new Call(Payload.Kind.ARRAY, type, count, size / 2));
                        matrix.add(new Call(Payload.Kind.BUFFER, type, count, 0));
                    }
                }
                ranks.plan(matrix.size());
                for (Call call : matrix) {
                    Broadcasts.check(
                            ranks.report(), hb, ranks.world(), call.kind, call.type, call.count, call.root, ++calls);
                }
            }
        }
    }

    private static void random(Ranks ranks) throws Exception {
        random(ranks, BcastOptions.defaults(), ranks.intArg("calls", 200), 0);
    }

    /**
     * {@code calls} back-to-back calls with random roots, sizes, types, containers and algorithms, on
     * instances with {@code options}, patterns seeded from {@code first + 1}; figure {@code bytes}
     * ({@code bytes from <first>} past 0).
     */
    private static void random(Ranks ranks, BcastOptions options, int calls, int first) throws Exception {
        ranks.plan(calls);
        Random rnd = new Random(Long.parseLong(ranks.arg("seed", "42")));
        List<HierarchicalBcast> instances = new ArrayList<>();
        try {
            for (Algorithm a : Algorithm.values()) {
                instances.add(HierarchicalBcast.create(ranks.world(), options.withAlgorithm(a)));
            }
            long bytes = 0;
            for (int i = 1; i <= calls; i++) {
                ElementType type = ElementType.values()[rnd.nextInt(ElementType.values().length)];
                Payload.Kind kind = Payload.Kind.values()[rnd.nextInt(Payload.Kind.values().length)];
                int count = (int) (Math.exp(rnd.nextDouble() * Math.log(4.0 * MIB)) / type.bytes());
                int root = rnd.nextInt(ranks.size());
                Broadcasts.check(
                        ranks.report(),
                        instances.get(rnd.nextInt(instances.size())),
                        ranks.world(),
                        kind,
                        type,
                        count,
                        root,
                        first + i);
                bytes += (long) count * type.bytes();
            }
            ranks.figure(first == 0 ? "bytes" : "bytes from " + first, bytes);
        } finally {
            for (HierarchicalBcast hb : instances) {
                hb.close();
            }
        }
    }
}
