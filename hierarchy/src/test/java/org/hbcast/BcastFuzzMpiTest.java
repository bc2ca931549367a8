package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** Hostile arguments on real ranks: rejected alike everywhere before sending, or delivered exactly (issue 8). */
class BcastFuzzMpiTest {

    @Test
    void fuzzedCallsAreRejectedAlikeOrDeliveredWithoutStrayWrites() {
        MpiOutcome out = MpiLaunch.program(BcastFuzzProgram.class).nodeSizes("2,3").env("HBCAST_TIMEOUT_S", "10")
                .timeout(Duration.ofSeconds(300)).args("cases=400", "seed=11").run().assertAllRanksOk();
        for (int r = 0; r < 5; r++) {
            assertTrue(out.verdict(r).detail().contains("400 fuzz cases"), out.describe("rank " + r));
        }
        System.out.println("fuzz on 2+3: " + out.verdict(0).detail());
    }
}
