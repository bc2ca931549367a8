package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which of the link probe's rounds count as noise passing ({@link LeaderLinkProbe#improves}): a pure function. */
class LeaderLinkProbeTest {
    @Test
    void aRoundImprovesOnlyWhereItBeatsTheFastestByMoreThanATenth() {
        assertTrue(LeaderLinkProbe.improves(30_000_000, Long.MAX_VALUE), "the first round sets the fastest");
        // Session 52's crowded bed: round trips of 21, 28, 16 and 8 ms before the 0.15 ms ones.
        assertTrue(LeaderLinkProbe.improves(7_973_000, 16_075_000));
        assertTrue(LeaderLinkProbe.improves(150_000, 7_973_000));
        assertFalse(LeaderLinkProbe.improves(150_000, 150_000), "as fast");
        assertFalse(LeaderLinkProbe.improves(136_000, 150_000), "within a tenth");
        assertTrue(LeaderLinkProbe.improves(134_000, 150_000), "past a tenth");
        assertFalse(LeaderLinkProbe.improves(9_000_000, 150_000), "a slower round");
    }
}
