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
 * instance stops (its next call fails at once, naming the cause), its ring neighbour learns it from
 * the aborted ring, and the root on the other node from rank 3's stop notice, instead of waiting for
 * it: no time-out is set, none is needed, and no rank gets wrong data.
 */
class BrokenRankMpiTest {

    @Test
    void aRankThatFailsInsideACallStopsAndItsNodeSeesIt() {
        MpiOutcome out = MpiLaunch.program(BrokenRankProgram.class)
                .ranks(4)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .env("HBCAST_INTRA", "ring")
                .rankJvmOption(3, "-XX:MaxDirectMemorySize=1m")
                .run();
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
        assertTrue(
                out.note(2, "first").endsWith("[cause RingAbortedException] [MPI_ERR_OTHER]"),
                out.describe("rank 2's failure keeps its cause and has a class"));
        assertTrue(out.note(2, "second").contains("unusable"), out.describe("rank 2, second call"));
        String heard =
                "rank 3 stopped its hbcast instance in call 1 (hbcast bcast on rank 3: java.lang.OutOfMemoryError";
        assertTrue(
                out.note(0, "first").contains(heard) || out.note(0, "second").contains(heard),
                out.describe("rank 0 hears rank 3's notice"));
        out.assertNoLeakedSegments();
    }
}
