package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/**
 * A throwable other than an {@code MPIException} in the middle of a call (issue 52): here rank 3
 * cannot copy a 4 MiB array into direct memory after the header. It used to leave rank 3 out of the
 * plan with its instance usable, so its next call took its peers' messages as its own. Now its
 * instance stops (its next call fails at once, naming the cause) and its ring neighbour learns it
 * from the aborted ring, failing at once too, naming rank 3; no rank gets wrong data.
 */
class BrokenRankMpiTest {

    @Test
    void aRankThatFailsInsideACallStopsAndItsNodeSeesIt() {
        MpiOutcome out = MpiLaunch.program(BrokenRankProgram.class)
                .ranks(4)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .env("HBCAST_INTRA", "ring")
                // Ranks 0 and 1 may be left waiting for the node that stopped: let them give up.
                .env("HBCAST_TIMEOUT_S", "5")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .rankJvmOption(3, "-XX:MaxDirectMemorySize=1m")
                .run();
        // Rank 0 may still be waiting to send to the node that stopped when the others end the job.
        for (int r = 1; r < 4; r++) {
            assertFalse(out.note(r, "first").startsWith("WRONG"), out.describe("rank " + r));
            assertFalse(out.note(r, "second").startsWith("WRONG"), out.describe("rank " + r));
        }
        assertTrue(out.note(3, "first").contains("OutOfMemoryError"), out.describe("rank 3, first call"));
        assertTrue(
                out.note(3, "second").contains("unusable after an earlier failure")
                        && out.note(3, "second").contains("OutOfMemoryError"),
                out.describe("rank 3, second call"));
        assertTrue(out.note(2, "first").contains("aborted"), out.describe("rank 2, first call"));
        assertTrue(out.note(2, "second").contains("unusable"), out.describe("rank 2, second call"));
        out.assertNoLeakedSegments();
    }
}
