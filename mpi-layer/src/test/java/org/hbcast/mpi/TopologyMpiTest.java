package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankResult;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real MPI launches: hello on one node, virtual nodes, and the network-namespace test bed. */
class TopologyMpiTest {

    @ParameterizedTest(name = "hello on {0} ranks")
    @ValueSource(ints = {1, 2, 4, 8})
    void helloOnOneNode(int ranks) {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class)
                .ranks(ranks)
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        for (int r = 0; r < ranks; r++) {
            assertPlace(out, r, ranks, 1, 0, r, ranks);
            assertEquals(ranks, out.longFigure(r, "onMachine"), out.describe("rank " + r + ": ranks on the machine"));
        }
    }

    /** Rank {@code r}'s figures: its place in a world of {@code size} ranks on {@code nodes} nodes. */
    private static void assertPlace(MpiOutcome out, int r, int size, int nodes, int node, int pos, int nodeSize) {
        String where = "rank " + r + ": ";
        assertEquals(size, out.longFigure(r, "size"), out.describe(where + "size"));
        assertEquals(nodes, out.longFigure(r, "nodes"), out.describe(where + "nodes"));
        assertEquals(node, out.longFigure(r, "node"), out.describe(where + "node"));
        assertEquals(pos, out.longFigure(r, "pos"), out.describe(where + "pos"));
        assertEquals(nodeSize, out.longFigure(r, "nodeSize"), out.describe(where + "nodeSize"));
    }

    @Test
    void virtualNodesOfThePatentsFourteenRankLayout() {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class)
                .nodeSizes("8,3,3")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        int[] expectedNode = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 2};
        int[] expectedPos = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 0, 1, 2};
        int[] sizes = {8, 3, 3};
        for (int r = 0; r < 14; r++) {
            assertPlace(out, r, 14, 3, expectedNode[r], expectedPos[r], sizes[expectedNode[r]]);
            // The virtual nodes lie in one real node, which the call headers use.
            assertEquals(1, out.longFigure(r, "hosts"), out.describe("rank " + r + ": real nodes"));
            assertEquals(r, out.longFigure(r, "hostPos"), out.describe("rank " + r + ": place in the real node"));
            assertEquals(14, out.longFigure(r, "hostSize"), out.describe("rank " + r + ": real node's size"));
        }
    }

    @Test
    void invalidVirtualLayoutIsAClearErrorOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class)
                .ranks(4)
                .env("HBCAST_NODE_SIZES", "2,3")
                .run();
        assertNotEquals(0, out.exitCode(), out.describe("should have failed"));
        // The first rank to fail aborts the job, so the others may be gone before they write: every rank
        // that did must have failed with the message, in discovery, before its case.
        assertFalse(out.results().isEmpty(), out.describe("no rank wrote its result"));
        for (RankResult result : out.results().values()) {
            RankResult.Failure f = out.onlyFailure(result.rank());
            assertTrue(
                    !result.completed()
                            && f.message()
                                    .contains("HBCAST_NODE_SIZES='2,3' sums to 5 ranks but the communicator has 4"),
                    out.describe("no clear message"));
            assertEquals(0, result.cases(), out.describe("rank " + result.rank() + " got as far as a case"));
        }
    }

    @Test
    void testBedTwoHostsOfThree() {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class)
                .testBed(2, 3)
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        Set<String> hosts = new HashSet<>();
        for (int r = 0; r < 6; r++) {
            assertPlace(out, r, 6, 2, r / 3, r % 3, 3);
            assertEquals(2, out.longFigure(r, "hosts"), out.describe("rank " + r + ": real nodes"));
            assertEquals(3, out.longFigure(r, "hostSize"), out.describe("rank " + r + ": real node's size"));
            // The bed's hosts are namespaces of one kernel: all six ranks share its cores.
            assertEquals(6, out.longFigure(r, "onMachine"), out.describe("rank " + r + ": ranks on the machine"));
            hosts.add(out.note(r, "host"));
        }
        assertEquals(2, hosts.size(), out.describe("expected two distinct processor names, got " + hosts));
    }

    /**
     * {@code scripts/testbed --own-cores}: each host's ranks run on cores no other host's rank runs
     * on, as on separate machines (where the machine has a core per host), and every rank of a host
     * on the same ones.
     */
    @Test
    void testBedHostsOnCoresOfTheirOwn() {
        int cores = Runtime.getRuntime().availableProcessors();
        Assumptions.assumeTrue(cores >= 2, "one core: two hosts cannot have cores of their own");
        MpiOutcome out = MpiLaunch.program(HelloProgram.class)
                .testBed(2, 2)
                .ownCores()
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        for (int host = 0; host < 2; host++) {
            assertEquals(
                    out.note(2 * host, "cores"),
                    out.note(2 * host + 1, "cores"),
                    out.describe("host " + host + ": its two ranks' cores"));
        }
        Set<Integer> first = coreSet(out.note(0, "cores"));
        for (int c : coreSet(out.note(2, "cores"))) {
            assertFalse(first.contains(c), out.describe("core " + c + " on both hosts"));
        }
    }

    /** The cores of a Linux core list such as {@code 0-3,8}. */
    private static Set<Integer> coreSet(String list) {
        Set<Integer> cores = new HashSet<>();
        for (String part : list.split(",")) {
            String[] ends = part.split("-");
            for (int c = Integer.parseInt(ends[0]); c <= Integer.parseInt(ends[ends.length - 1]); c++) {
                cores.add(c);
            }
        }
        return cores;
    }

    /**
     * Container images of Open MPI often set {@code OMPI_MCA_plm=isolated} (a GPU machine's did):
     * mpirun then starts nothing on other hosts and fails with "All nodes which are allocated for
     * this job are already filled". A bed names its launcher, so the environment cannot take it.
     */
    @Test
    void testBedRunsWhereTheEnvironmentChoosesAnotherLauncher() {
        MpiOutcome out = MpiLaunch.program(HelloProgram.class)
                .testBed(2, 1)
                .env("OMPI_MCA_plm", "isolated")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        assertEquals(2, out.longFigure(0, "hosts"), out.describe("rank 0: real nodes"));
    }

    @Test
    void sixteenMebibyteRoundTripBetweenTestBedHosts() {
        MpiOutcome out = MpiLaunch.program(RoundTripProgram.class)
                .testBed(2, 1)
                .args(Integer.toString(16 << 20))
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        for (int r = 0; r < 2; r++) {
            assertEquals(16 << 20, out.longFigure(r, "bytes"), out.describe("rank " + r + ": bytes"));
        }
    }
}
