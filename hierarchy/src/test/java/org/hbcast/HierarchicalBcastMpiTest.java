package org.hbcast;

import org.hbcast.call.ElementType;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The correctness matrix of the host broadcast on real MPI launches; every rank must check every call. */
class HierarchicalBcastMpiTest {
    private static final String CHUNK = "4096";

    private static MpiLaunch matrix() {
        return MpiLaunch.program(BcastMatrixProgram.class).env("HBCAST_CHUNK_BYTES", CHUNK);
    }

    /**
     * Every rank ran every call of {@link BcastMatrixProgram}'s matrix: per algorithm, counts 0, 1,
     * 7 and around the chunk of every type and container from every root of {@code roots}; 1 MiB+13
     * of every type ({@code medium=all}) or of two, as array and typed buffer; 32 MiB and five elements twice, of
     * bytes ({@code large=yes}) or of every type ({@code large=all}).
     */
    private static void assertMatrix(MpiOutcome out, String roots, String medium, String large, int algorithms) {
        int size = out.ranks();
        int types = ElementType.values().length;
        int rootCount = roots.equals("all") ? size : 1 + (size > 2 ? 1 : 0) + (size > 1 ? 1 : 0);
        int small = types * Payload.Kind.values().length * 6 * rootCount;
        int mediums = (medium.equals("all") ? types : 2) * 2;
        int larges = switch (large) {
            case "yes" -> 2;
            case "all" -> 2 * types;
            default -> 0;
        };
        out.assertAllRanksOk().assertCasesOnEveryRank(algorithms * (small + mediums + larges));
    }

    @ParameterizedTest(name = "one node of {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void oneNodeEveryRoot(int ranks) {
        assertMatrix(matrix().ranks(ranks).args("roots=all").run(), "all", "all", "no", 2);
    }

    @Test
    void oneNodeOfEight() {
        assertMatrix(matrix().ranks(8).args("roots=ends", "medium=few").run(), "ends", "few", "no", 2);
    }

    @ParameterizedTest(name = "virtual nodes {0}")
    @ValueSource(strings = {"2,2", "3,3", "1,1,1,1"})
    void smallVirtualLayoutsEveryRoot(String nodes) {
        assertMatrix(matrix().nodeSizes(nodes).args("roots=all").run(), "all", "all", "no", 2);
    }

    @ParameterizedTest(name = "virtual nodes {0}")
    @ValueSource(strings = {"3,3,3", "8,3,3"})
    void largeVirtualLayouts(String nodes) {
        assertMatrix(matrix().nodeSizes(nodes).args("roots=ends", "medium=few").run(), "ends", "few", "no", 2);
    }

    @Test
    void largeMessagesOnTwoVirtualNodes() {
        assertMatrix(
                MpiLaunch.program(BcastMatrixProgram.class)
                        .nodeSizes("2,2")
                        .args("roots=ends", "medium=few", "large=yes")
                        .run(),
                "ends",
                "few",
                "yes",
                2);
    }

    @Test
    void thirtyTwoMebibytesAndFiveElementsOfEveryDatatype() {
        assertMatrix(
                MpiLaunch.program(BcastMatrixProgram.class)
                        .nodeSizes("1,2")
                        .args("roots=ends", "medium=few", "large=all", "algorithms=hierarchical")
                        .run(),
                "ends",
                "few",
                "all",
                1);
    }

    @Test
    void testBedTwoHostsOfThree() {
        assertMatrix(matrix().testBed(2, 3).args("roots=all", "medium=few").run(), "all", "few", "no", 2);
    }

    @Test
    void testBedThreeHostsOfThreeTwoAndOne() {
        assertMatrix(matrix().testBedOf(3, 2, 1).args("roots=all", "medium=few").run(), "all", "few", "no", 2);
    }

    /**
     * A network-bound bed as the many-nodes benchmarks use (every host link shaped to 1 Gbit/s, uneven
     * hosts of 2+1+1): each leaders' schedule with each transport inside the node, every root.
     */
    @ParameterizedTest(name = "shaped bed 2+1+1, leaders' {0}, {1} inside")
    @CsvSource({"knomial, ring", "knomial, fanout", "chain, ring", "chain, fanout", "two-tree, ring", "two-tree, fanout"
    })
    void shapedTestBedOfUnevenHostsEveryScheduleAndRoot(String inter, String intra) {
        assertSchedulesEveryRoot(matrix().testBedOf(2, 1, 1).netem("rate 1gbit"), inter, intra);
    }

    /** The hierarchy with the leaders' schedule {@code inter} and {@code intra} inside nodes: every root, few counts. */
    private static void assertSchedulesEveryRoot(MpiLaunch launch, String inter, String intra) {
        assertMatrix(
                launch.env("HBCAST_INTER", inter)
                        .env("HBCAST_INTRA", intra)
                        .args("roots=all", "medium=few", "algorithms=hierarchical")
                        .run(),
                "all",
                "few",
                "no",
                1);
    }

    @Test
    void twoHundredRandomBackToBackCalls() {
        MpiLaunch.program(BcastMatrixProgram.class)
                .nodeSizes("3,2")
                .env("HBCAST_CHUNK_BYTES", "65536")
                .args("suite=random", "calls=200")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"4", "3,3", "1,3,2"})
    void nodeFanOutEveryRoot(String nodes) {
        assertMatrix(
                matrix().nodeSizes(nodes)
                        .env("HBCAST_INTRA", "fanout")
                        .args("roots=all", "medium=few")
                        .run(),
                "all",
                "few",
                "no",
                2);
    }

    /** The leaders' chain and two trees: uneven nodes, every root, counts around the chunks, both transports. */
    @ParameterizedTest(name = "leaders' {0} over nodes {1}, {2} inside")
    @CsvSource({
        "chain, '1,3,2,1', ring",
        "two-tree, '2,1,2,1,1', ring",
        "two-tree, '3,1,2', fanout",
        "chain, '2,2,1', fanout"
    })
    void leadersSchedulesEveryRoot(String inter, String nodes, String intra) {
        assertSchedulesEveryRoot(matrix().nodeSizes(nodes), inter, intra);
    }

    /** The flat tree over every rank down a chain and two trees: every root, counts around the chunks. */
    @ParameterizedTest(name = "flat {0} over nodes {1}")
    @CsvSource({"chain, '2,3'", "two-tree, '1,2,2'"})
    void flatTreeShapesEveryRoot(String inter, String nodes) {
        assertMatrix(
                matrix().nodeSizes(nodes)
                        .env("HBCAST_INTER", inter)
                        .args("roots=all", "medium=few", "algorithms=knomial")
                        .run(),
                "all",
                "few",
                "no",
                1);
    }

    @Test
    void randomBackToBackCallsDownTwoTrees() {
        MpiLaunch.program(BcastMatrixProgram.class)
                .nodeSizes("2,1,1,2")
                .env("HBCAST_CHUNK_BYTES", "8192")
                .env("HBCAST_INTER", "two-tree")
                .args("suite=random", "calls=120")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(120);
    }

    @Test
    void randomBackToBackCallsThroughTheFanOut() {
        MpiLaunch.program(BcastMatrixProgram.class)
                .nodeSizes("4,2")
                .env("HBCAST_CHUNK_BYTES", "65536")
                .env("HBCAST_INTRA", "fanout")
                .args("suite=random", "calls=150")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(150);
    }

    @Test
    void twoInstancesOnSplitCommunicatorsInterleaved() {
        // 40 calls on each rank's half and 40 on the whole world, interleaved.
        MpiLaunch.program(BcastMatrixProgram.class)
                .nodeSizes("3,3")
                .args("suite=split")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2 * 40);
    }
}
