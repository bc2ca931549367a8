package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** Hostile arguments on real ranks: rejected alike everywhere before sending, or delivered exactly (issue 8). */
class BcastFuzzMpiTest {

    @Test
    void fuzzedCallsAreRejectedAlikeOrDeliveredWithoutStrayWrites() {
        MpiOutcome out = MpiLaunch.program(BcastFuzzProgram.class)
                .nodeSizes("2,3")
                .env("HBCAST_TIMEOUT_S", "10")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .timeout(Duration.ofSeconds(300))
                .args("cases=400", "seed=11")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(400);
        long accepted = out.longFigure(0, "accepted");
        long rejected = out.longFigure(0, "rejected");
        assertTrue(accepted > 0 && rejected > 0, out.describe("the fuzz did not cover both sides"));
        assertEquals(400, accepted + rejected, out.describe("accepted and rejected"));
        for (int r = 1; r < 5; r++) {
            // A case is rejected on every rank or on none.
            assertEquals(accepted, out.longFigure(r, "accepted"), out.describe("rank " + r + " accepted"));
            assertEquals(rejected, out.longFigure(r, "rejected"), out.describe("rank " + r + " rejected"));
        }
        System.out.println("fuzz on 2+3: " + accepted + " delivered exactly, " + rejected + " rejected alike");
    }
}
