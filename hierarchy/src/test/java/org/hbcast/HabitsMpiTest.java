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
        MpiOutcome out = MpiLaunch.program(HabitsProgram.class).ranks(4).args("suite=churn", "loops=2000").run()
                .assertAllRanksOk();
        for (int r = 0; r < 4; r++) {
            assertTrue(out.verdict(r).detail().startsWith("communicators=2000 "), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
        System.out.println("churn: " + out.verdicts().values());
    }

    @Test
    void communicatorsCreatedAndFreedOnVirtualNodesLeakNothing() {
        MpiLaunch.program(HabitsProgram.class).nodeSizes("2,3").args("suite=churn", "loops=400").run()
                .assertAllRanksOk().assertNoLeakedSegments();
    }

    @Test
    void twoThreadsBroadcastOnTwoCommunicatorsAtOnceUnderThreadMultiple() {
        MpiOutcome out = MpiLaunch.program(HabitsProgram.class).nodeSizes("2,2").args("suite=threads").run()
                .assertAllRanksOk();
        for (int r = 0; r < 4; r++) {
            assertEquals("threads=2 calls=300", out.verdict(r).detail(), out.describe("rank " + r));
        }
    }

    @Test
    void aSecondThreadIsRefusedWithoutThreadMultiple() {
        MpiOutcome out = MpiLaunch.program(HabitsProgram.class).ranks(3).args("suite=serialized").run()
                .assertAllRanksOk();
        assertTrue(out.verdict(0).detail().contains("but MPI provides thread level THREAD_SERIALIZED"),
                out.describe("rank 0"));
    }

    @Test
    void derivedAndStructDatatypesAreRefusedWithAMessage() {
        MpiOutcome out = MpiLaunch.program(HabitsProgram.class).nodeSizes("2,2").args("suite=types").run()
                .assertAllRanksOk();
        for (int r = 0; r < 4; r++) {
            assertTrue(out.verdict(r).detail().contains("derived datatype of size 4, extent 7"), out.describe("rank " + r));
        }
    }
}
