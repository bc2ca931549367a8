package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankResult;
import org.junit.jupiter.api.Test;

/** Bad arguments, mismatched calls and a killed rank: clear errors on every rank, no hang, no leak. */
class BcastFailureMpiTest {

    @Test
    void badArgumentsFailOnEveryRankBeforeAnythingIsSent() {
        // Nine bad calls and the valid one after them.
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=arguments")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
        for (int r = 0; r < 4; r++) {
            assertTrue(
                    out.note(r, "root past the last rank")
                            .contains("root 4 is out of range: the communicator has ranks 0..3"),
                    out.describe("rank " + r));
            assertTrue(
                    out.note(r, "count past the buffer").contains("needs 520 bytes but the buffer holds 512"),
                    out.describe("rank " + r));
        }
    }

    @Test
    void mismatchedCountsInCheckModeFailOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=check")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(3);
        for (int r = 0; r < 4; r++) {
            assertTrue(out.note(r, "count mismatch").contains("ranks disagree on the call"), out.describe("rank " + r));
            assertTrue(out.note(r, "root mismatch").contains("ranks disagree on the root"), out.describe("rank " + r));
        }
    }

    @Test
    void aKilledRankMakesTheOthersFailWithinTheTimeout() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=kill")
                .env("HBCAST_TIMEOUT_S", "5")
                // hbcast's own plan: where auto runs Open MPI's bcast (on virtual nodes past the header, say)
                // the call waits as Open MPI's does, without hbcast's timeout.
                .env("HBCAST_ALGORITHM", "hierarchical")
                .mca("orte_enable_recovery", "1")
                .run();
        // Rank 3 is the victim; every other rank's broadcasts must fail, and it must say so.
        for (int r = 0; r < 3; r++) {
            RankResult.Failure f = out.onlyFailure(r);
            assertTrue(
                    out.result(r).completed()
                            && f.caseName().equals(BcastFailureProgram.KILL_CASE)
                            && !f.message().isBlank(),
                    out.describe("rank " + r + " did not end with failed broadcasts: " + f));
            out.assertCases(r, 2);
            double seconds = out.figure(r, "seconds");
            assertTrue(seconds < 5 + 10, out.describe("rank " + r + " took " + seconds + " s"));
        }
        out.assertNoLeakedSegments();
        System.out.println("killed-rank outcome: " + out.results());
    }
}
