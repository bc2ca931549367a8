package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** Bad arguments, mismatched calls and a killed rank: clear errors on every rank, no hang, no leak. */
class BcastFailureMpiTest {

    @Test
    void badArgumentsFailOnEveryRankBeforeAnythingIsSent() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class).nodeSizes("2,2").args("suite=arguments")
                .run().assertAllRanksOk();
        for (int r = 0; r < 4; r++) {
            assertTrue(out.verdict(r).detail().contains("root 4 is out of range: the communicator has ranks 0..3"),
                    out.describe("rank " + r));
        }
    }

    @Test
    void mismatchedCountsInCheckModeFailOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class).nodeSizes("2,2").args("suite=check").run()
                .assertAllRanksOk();
        for (int r = 0; r < 4; r++) {
            assertTrue(out.verdict(r).detail().contains("ranks disagree on the call"), out.describe("rank " + r));
            assertTrue(out.verdict(r).detail().contains("ranks disagree on the root"), out.describe("rank " + r));
        }
    }

    @Test
    void aKilledRankMakesTheOthersFailWithinTheTimeout() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class).nodeSizes("2,2").args("suite=kill")
                .env("HBCAST_TIMEOUT_S", "5").mca("orte_enable_recovery", "1").run();
        for (int r = 0; r < 3; r++) {
            String d = out.verdict(r).detail();
            assertTrue(out.verdict(r).ok() && d.startsWith("failed after"), out.describe("rank " + r + ": " + d));
            double seconds = Double.parseDouble(d.substring("failed after ".length(), d.indexOf(" s:")));
            assertTrue(seconds < 5 + 10, out.describe("rank " + r + " took " + seconds + " s"));
        }
        out.assertNoLeakedSegments();
        System.out.println("killed-rank outcome: " + out.verdicts());
    }
}
