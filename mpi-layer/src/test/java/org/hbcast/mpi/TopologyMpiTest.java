package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Real MPI launches: hello on one node, virtual nodes, and the network-namespace test bed. */
class TopologyMpiTest {

    @ParameterizedTest(name = "hello on {0} ranks")
    @ValueSource(ints = {1, 2, 4, 8})
    void helloOnOneNode(int ranks) {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class).ranks(ranks).run().assertAllRanksOk();
        for (int r = 0; r < ranks; r++) {
            String d = out.verdict(r).detail();
            assertTrue(d.startsWith("size=" + ranks + " nodes=1 node=0 pos=" + r + " nodeSize=" + ranks + " "),
                    out.describe("rank " + r + ": " + d));
        }
    }

    @Test
    void virtualNodesOfThePatentsFourteenRankLayout() {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class).nodeSizes("8,3,3").run().assertAllRanksOk();
        int[] expectedNode = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
        int[] expectedPos = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 0, 1, 2};
        int[] sizes = {8, 3, 3};
        for (int r = 0; r < 14; r++) {
            String d = out.verdict(r).detail();
            String want = "size=14 nodes=3 node=" + expectedNode[r] + " pos=" + expectedPos[r]
                    + " nodeSize=" + sizes[expectedNode[r]] + " ";
            assertTrue(d.startsWith(want), out.describe("rank " + r + ": '" + d + "', want '" + want + "...'"));
        }
    }

    @Test
    void invalidVirtualLayoutIsAClearErrorOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class).ranks(4).env("HBCAST_NODE_SIZES", "2,3").run();
        assertNotEquals(0, out.exitCode(), out.describe("should have failed"));
        assertTrue(out.output().contains("HBCAST_NODE_SIZES='2,3' sums to 5 ranks but the communicator has 4"),
                out.describe("no clear message"));
    }

    @Test
    void testBedTwoHostsOfThree() {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class).testBed(2, 3).run().assertAllRanksOk();
        Set<String> hosts = new HashSet<>();
        for (int r = 0; r < 6; r++) {
            String d = out.verdict(r).detail();
            assertTrue(d.startsWith("size=6 nodes=2 node=" + (r / 3) + " pos=" + (r % 3) + " nodeSize=3 "),
                    out.describe("rank " + r + ": " + d));
            hosts.add(d.substring(d.indexOf("host=")));
        }
        assertEquals(2, hosts.size(), out.describe("expected two distinct processor names, got " + hosts));
    }

    @Test
    void sixteenMebibyteRoundTripBetweenTestBedHosts() {
        MpiOutcome out = MpiLaunch.program(RoundTripProgram.class).testBed(2, 1).args(Integer.toString(16 << 20))
                .run().assertAllRanksOk();
        assertTrue(out.verdict(0).detail().contains("intact"), out.describe("no round trip"));
    }
}
