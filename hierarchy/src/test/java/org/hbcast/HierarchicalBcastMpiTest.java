package org.hbcast;

import org.hbcast.testing.MpiLaunch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The correctness matrix of the host broadcast on real MPI launches. */
class HierarchicalBcastMpiTest {
    private static final String CHUNK = "4096";

    private static MpiLaunch matrix() {
        return MpiLaunch.program(BcastMatrixProgram.class).env("HBCAST_CHUNK_BYTES", CHUNK);
    }

    @ParameterizedTest(name = "one node of {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void oneNodeEveryRoot(int ranks) {
        matrix().ranks(ranks).args("roots=all").run().assertAllRanksOk();
    }

    @Test
    void oneNodeOfEight() {
        matrix().ranks(8).args("roots=ends", "medium=few").run().assertAllRanksOk();
    }

    @ParameterizedTest(name = "virtual nodes {0}")
    @ValueSource(strings = {"2,2", "3,3", "1,1,1,1"})
    void smallVirtualLayoutsEveryRoot(String nodes) {
        matrix().nodeSizes(nodes).args("roots=all").run().assertAllRanksOk();
    }

    @ParameterizedTest(name = "virtual nodes {0}")
    @ValueSource(strings = {"3,3,3", "8,3,3"})
    void largeVirtualLayouts(String nodes) {
        matrix().nodeSizes(nodes).args("roots=ends", "medium=few").run().assertAllRanksOk();
    }

    @Test
    void largeMessagesOnTwoVirtualNodes() {
        MpiLaunch.program(BcastMatrixProgram.class).nodeSizes("2,2").args("roots=ends", "medium=few", "large=yes")
                .run().assertAllRanksOk();
    }

    @Test
    void thirtyTwoMebibytesPlusFiveOfEveryDatatype() {
        MpiLaunch.program(BcastMatrixProgram.class).nodeSizes("1,2").args("roots=ends", "medium=few", "large=all",
                "algorithms=hierarchical").run().assertAllRanksOk();
    }

    @Test
    void testBedTwoHostsOfThree() {
        matrix().testBed(2, 3).args("roots=all", "medium=few").run().assertAllRanksOk();
    }

    @Test
    void testBedThreeHostsOfThreeTwoAndOne() {
        matrix().testBedOf(3, 2, 1).args("roots=all", "medium=few").run().assertAllRanksOk();
    }

    @Test
    void twoHundredRandomBackToBackCalls() {
        MpiLaunch.program(BcastMatrixProgram.class).nodeSizes("3,2").env("HBCAST_CHUNK_BYTES", "65536")
                .args("suite=random", "calls=200").run().assertAllRanksOk();
    }

    @ParameterizedTest
    @ValueSource(strings = {"4", "3,3", "1,3,2"})
    void nodeFanOutEveryRoot(String nodes) {
        matrix().nodeSizes(nodes).env("HBCAST_INTRA", "fanout").args("roots=all", "medium=few").run()
                .assertAllRanksOk();
    }

    @Test
    void randomBackToBackCallsThroughTheFanOut() {
        MpiLaunch.program(BcastMatrixProgram.class).nodeSizes("4,2").env("HBCAST_CHUNK_BYTES", "65536")
                .env("HBCAST_INTRA", "fanout").args("suite=random", "calls=150").run().assertAllRanksOk();
    }

    @Test
    void twoInstancesOnSplitCommunicatorsInterleaved() {
        MpiLaunch.program(BcastMatrixProgram.class).nodeSizes("3,3").args("suite=split").run().assertAllRanksOk();
    }
}
