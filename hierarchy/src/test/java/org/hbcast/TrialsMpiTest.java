package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** {@code auto}'s in-run selection on real launches (see {@link TrialsProgram}): data right while trying, verdicts alike, kept. */
class TrialsMpiTest {

    private static void assertDecidedAlike(MpiOutcome out, int ranks, boolean headerOption) {
        String first = out.verdict(0).detail();
        assertTrue(first.startsWith("decided=3000:"), out.describe("rank 0"));
        for (int r = 1; r < ranks; r++) {
            assertEquals(first, out.verdict(r).detail(), out.describe("rank " + r));
        }
        if (!headerOption) {
            assertTrue(!first.contains("inline"), out.describe("no header, no inline option"));
        }
        System.out.println(out.verdicts().get(0));
    }

    @Test
    void oneNodeOfFour() {
        assertDecidedAlike(MpiLaunch.program(TrialsProgram.class).ranks(4).run().assertAllRanksOk(), 4, true);
    }

    @Test
    void unevenVirtualNodes() {
        assertDecidedAlike(MpiLaunch.program(TrialsProgram.class).nodeSizes("2,1,2").run().assertAllRanksOk(), 5, true);
    }

    @Test
    void withEqualCountsThereIsNoHeaderToRideIn() {
        assertDecidedAlike(MpiLaunch.program(TrialsProgram.class).nodeSizes("2,2").env("HBCAST_COUNTS", "equal")
                .args("kept=no").run().assertAllRanksOk(), 4, false);
    }
}
