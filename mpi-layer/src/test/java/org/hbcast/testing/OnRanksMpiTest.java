package org.hbcast.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import mpi.MPI;
import org.junit.jupiter.api.Test;

/** {@link OnRanks} and {@link MpiLaunch#body} on real launches: the method runs on every rank, plans are held to. */
class OnRanksMpiTest {
    private static final List<String> WORDS = List.of("one", "two", "three");

    /** Set by the constructor: an instance method gets an instance of its own on each rank. */
    private final String made = "made";

    @OnRanks(
            value = {"3", "2,1"},
            env = "HBCAST_TEST_WORD=env",
            args = "word=arg")
    void everyRankRunsTheMethodWithItsRank(Ranks ranks) throws Exception {
        ranks.plan(WORDS.size() + 3);
        for (String w : WORDS) {
            ranks.check(w, () -> {});
        }
        int[] sum = {ranks.rank()};
        ranks.world().allReduce(sum, 1, MPI.INT, MPI.SUM);
        ranks.check("the world is the job's", () -> {
            if (ranks.size() != 3 || sum[0] != 3) {
                throw new AssertionError("size " + ranks.size() + ", sum of ranks " + sum[0]);
            }
        });
        ranks.check("arguments, environment and layout reach the rank", () -> {
            String got = ranks.arg("word", "-") + " " + System.getenv("HBCAST_TEST_WORD") + " " + made;
            if (!got.equals("arg env made") || !List.of("3", "2,1").contains(ranks.layout())) {
                throw new AssertionError(got + ", layout " + ranks.layout());
            }
        });
        ranks.check("virtual nodes follow the layout", () -> {
            String nodes = System.getenv("HBCAST_NODE_SIZES");
            if (ranks.layout().equals("2,1") != "2,1".equals(nodes)) {
                throw new AssertionError("layout " + ranks.layout() + ", HBCAST_NODE_SIZES " + nodes);
            }
        });
    }

    @OnRanks(value = "2", threads = Ranks.Threads.MULTIPLE)
    void threadLevelAsAsked(Ranks ranks) throws Exception {
        ranks.plan(1).check("THREAD_MULTIPLE", () -> assertEquals(MPI.THREAD_MULTIPLE, MPI.queryThread()));
    }

    static void plansTwoRunsOne(Ranks ranks) {
        ranks.plan(2).pass("only one").figure("rank", ranks.rank());
    }

    static void plansNothing(Ranks ranks) {
        ranks.pass("unplanned");
    }

    @Test
    void aRankThatRunsFewerCasesThanItPlannedFailsTheTest() {
        MpiOutcome out =
                MpiLaunch.body(OnRanksMpiTest::plansTwoRunsOne).layout("2").run();
        assertEquals(1, out.longFigure(1, "rank"));
        String message =
                assertThrows(AssertionError.class, out::assertAllRanksOk).getMessage();
        assertTrue(message.contains("rank 0 ran 1 cases, planned 2"), message);
        String none = assertThrows(
                        AssertionError.class,
                        () -> MpiLaunch.body(OnRanksMpiTest::plansNothing)
                                .layout("2")
                                .run()
                                .assertAllRanksOk())
                .getMessage();
        assertTrue(none.contains("rank 1 declared no cases"), none);
    }

    @Test
    void aBodyMustNameAMethodAndCaptureNothing() {
        String word = "captured";
        assertThrows(IllegalArgumentException.class, () -> MpiLaunch.body(r -> r.note("w", word)));
    }
}
