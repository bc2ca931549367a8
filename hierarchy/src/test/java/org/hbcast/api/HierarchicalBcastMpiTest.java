package org.hbcast.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import mpi.Intracomm;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
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

    @OnRanks(
            value = {"2,2", "3,3", "1,1,1,1"},
            env = CHUNK,
            args = "roots=all")
    void smallVirtualLayoutsEveryRoot(Ranks ranks) throws Exception {
        matrix(ranks);
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
     * hosts of 2+1+1): each leaders' schedule with each transport inside the node, every root.
     */
    @OnRanks(
            value = "bed 2,1,1",
            netem = "rate 1gbit",
            env = {CHUNK, "HBCAST_INTER=knomial", "HBCAST_INTRA=ring"})
    @OnRanks(
            value = "bed 2,1,1",
            netem = "rate 1gbit",
            env = {CHUNK, "HBCAST_INTER=knomial", "HBCAST_INTRA=fanout"})
    @OnRanks(
            value = "bed 2,1,1",
            netem = "rate 1gbit",
            env = {CHUNK, "HBCAST_INTER=chain", "HBCAST_INTRA=ring"})
    @OnRanks(
            value = "bed 2,1,1",
            netem = "rate 1gbit",
            env = {CHUNK, "HBCAST_INTER=chain", "HBCAST_INTRA=fanout"})
    @OnRanks(
            value = "bed 2,1,1",
            netem = "rate 1gbit",
            env = {CHUNK, "HBCAST_INTER=two-tree", "HBCAST_INTRA=ring"})
    @OnRanks(
            value = "bed 2,1,1",
            netem = "rate 1gbit",
            env = {CHUNK, "HBCAST_INTER=two-tree", "HBCAST_INTRA=fanout"})
    void shapedTestBedOfUnevenHostsEveryScheduleAndRoot(Ranks ranks) throws Exception {
        everyRootHierarchical(ranks);
    }

    @OnRanks(
            value = {"nodes 4", "3,3", "1,3,2"},
            env = {CHUNK, "HBCAST_INTRA=fanout"},
            args = {"roots=all", "medium=few"})
    void nodeFanOutEveryRoot(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    /** The leaders' chain and two trees: uneven nodes, every root, counts around the chunks, both transports. */
    @OnRanks(
            value = "1,3,2,1",
            env = {CHUNK, "HBCAST_INTER=chain", "HBCAST_INTRA=ring"})
    @OnRanks(
            value = "2,1,2,1,1",
            env = {CHUNK, "HBCAST_INTER=two-tree", "HBCAST_INTRA=ring"})
    @OnRanks(
            value = "3,1,2",
            env = {CHUNK, "HBCAST_INTER=two-tree", "HBCAST_INTRA=fanout"})
    @OnRanks(
            value = "2,2,1",
            env = {CHUNK, "HBCAST_INTER=chain", "HBCAST_INTRA=fanout"})
    void leadersSchedulesEveryRoot(Ranks ranks) throws Exception {
        everyRootHierarchical(ranks);
    }

    /** The flat tree over every rank down a chain and two trees: every root, counts around the chunks. */
    @OnRanks(
            value = "2,3",
            env = {CHUNK, "HBCAST_INTER=chain"},
            args = {"roots=all", "medium=few", "algorithms=knomial"})
    @OnRanks(
            value = "1,2,2",
            env = {CHUNK, "HBCAST_INTER=two-tree"},
            args = {"roots=all", "medium=few", "algorithms=knomial"})
    void flatTreeShapesEveryRoot(Ranks ranks) throws Exception {
        matrix(ranks);
    }

    @OnRanks(value = "3,2", env = "HBCAST_CHUNK_BYTES=65536", args = "calls=200")
    void twoHundredRandomBackToBackCalls(Ranks ranks) throws Exception {
        random(ranks);
    }

    @OnRanks(
            value = "2,1,1,2",
            env = {"HBCAST_CHUNK_BYTES=8192", "HBCAST_INTER=two-tree"},
            args = "calls=120")
    void randomBackToBackCallsDownTwoTrees(Ranks ranks) throws Exception {
        random(ranks);
    }

    @OnRanks(
            value = "4,2",
            env = {"HBCAST_CHUNK_BYTES=65536", "HBCAST_INTRA=fanout"},
            args = "calls=150")
    void randomBackToBackCallsThroughTheFanOut(Ranks ranks) throws Exception {
        random(ranks);
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

    /** The hierarchy with the leaders' schedule and transport of the environment: every root, few counts. */
    private static void everyRootHierarchical(Ranks ranks) throws Exception {
        matrix(ranks, "all", "few", "no", List.of(Algorithm.HIERARCHICAL));
    }

    private static void matrix(Ranks ranks) throws Exception {
        List<Algorithm> algorithms = new ArrayList<>();
        for (String s : ranks.arg("algorithms", "hierarchical,knomial").split(",")) {
            algorithms.add(Algorithm.parse(s));
        }
        matrix(ranks, ranks.arg("roots", "all"), ranks.arg("medium", "all"), ranks.arg("large", "no"), algorithms);
    }

    /** One broadcast of a matrix: its container, datatype, count and root. */
    private record Call(Payload.Kind kind, ElementType type, int count, int root) {}

    /**
     * Per algorithm: counts 0, 1, 7, chunk-1, chunk, chunk+1 of every datatype and container from
     * every root of {@code roots}; 1 MiB+13 elements of every datatype ({@code medium=all}) or of two,
     * as array and typed buffer; 32 MiB and five elements as array and direct buffer, of bytes
     * ({@code large=yes}) or of every datatype ({@code large=all}). Figures {@code chunk <algorithm>}.
     */
    private static void matrix(Ranks ranks, String rootSpec, String medium, String large, List<Algorithm> algorithms)
            throws Exception {
        int size = ranks.size();
        List<Integer> roots = Broadcasts.roots(rootSpec, size);
        BcastOptions base = BcastOptions.defaults();
        int calls = 0;
        for (Algorithm algorithm : algorithms) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(ranks.world(), base.withAlgorithm(algorithm))) {
                // Sizes around the chunk the plan of a 256 KiB message cuts at.
                int chunk = hb.plan(base.chunkBytes() != 0 ? base.chunkBytes() : 256 << 10)
                        .chunkBytes();
                ranks.figure("chunk " + algorithm, chunk);
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

    /** {@code calls} back-to-back calls with random roots, sizes, types, containers and algorithms; figure {@code bytes}. */
    private static void random(Ranks ranks) throws Exception {
        int calls = ranks.intArg("calls", 200);
        ranks.plan(calls);
        Random rnd = new Random(Long.parseLong(ranks.arg("seed", "42")));
        List<HierarchicalBcast> instances = new ArrayList<>();
        try {
            for (Algorithm a : Algorithm.values()) {
                instances.add(HierarchicalBcast.create(
                        ranks.world(), BcastOptions.defaults().withAlgorithm(a)));
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
                        i);
                bytes += (long) count * type.bytes();
            }
            ranks.figure("bytes", bytes);
        } finally {
            for (HierarchicalBcast hb : instances) {
                hb.close();
            }
        }
    }
}
