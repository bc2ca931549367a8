package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** What real programs do besides plain broadcasts (issue 24), on real launches: see {@link HabitsProgram}. */
class HabitsMpiTest {

    @Test
    void twoThousandCommunicatorsCreatedAndFreedLeakNothing() {
        // A broadcast on each communicator, and four resources that must not grow.
        MpiOutcome out = MpiLaunch.program(HabitsProgram.class)
                .ranks(4)
                .args("suite=churn", "loops=2000")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2000 + 4);
        for (int r = 0; r < 4; r++) {
            assertEquals(2000, out.longFigure(r, "communicators"), out.describe("rank " + r));
            assertEquals(0, out.longFigure(r, "segments"), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
        System.out.println("churn: " + out.results().values());
    }

    @Test
    void communicatorsCreatedAndFreedOnVirtualNodesLeakNothing() {
        MpiLaunch.program(HabitsProgram.class)
                .nodeSizes("2,3")
                .args("suite=churn", "loops=400")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(400 + 4)
                .assertNoLeakedSegments();
    }

    @Test
    void twoThreadsBroadcastOnTwoCommunicatorsAtOnceUnderThreadMultiple() {
        // 150 checked calls on each of the two threads.
        MpiLaunch.program(HabitsProgram.class)
                .nodeSizes("2,2")
                .args("suite=threads")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2 * 150);
    }

    @Test
    void aSecondThreadIsRefusedWithoutThreadMultiple() {
        // Rank 0 sees the refusal; every rank then checks a call on each communicator.
        MpiOutcome out = MpiLaunch.program(HabitsProgram.class)
                .ranks(3)
                .args("suite=serialized")
                .run()
                .assertAllRanksOk()
                .assertCases(0, 3)
                .assertCases(1, 2)
                .assertCases(2, 2);
        assertTrue(
                out.note(0, HabitsProgram.REFUSED).contains("but MPI provides thread level THREAD_SERIALIZED"),
                out.describe("rank 0"));
    }

    @Test
    void derivedAndStructDatatypesAreRefusedWithAMessage() {
        // Four datatypes refused, the valid call after them, differing HBCAST_COUNTS refused.
        MpiOutcome out = MpiLaunch.program(HabitsProgram.class)
                .nodeSizes("2,2")
                .args("suite=types")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(6);
        for (int r = 0; r < 4; r++) {
            assertTrue(
                    out.note(r, "vector datatype").contains("derived datatype of size 4, extent 7"),
                    out.describe("rank " + r));
            assertTrue(
                    out.note(r, "HBCAST_COUNTS differ").contains("ranks disagree on HBCAST_COUNTS"),
                    out.describe("rank " + r));
        }
    }
}
