package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** The leaders' link probe on a bed whose link is shaped to a known rate: it must find that rate. */
class LeaderLinkProbeMpiTest {
    /** 200 Mbit/s: slow enough that the probe's large message takes 10 ms, far above the clock's and the start-up's share. */
    private static final double SHAPED_BYTES_PER_SECOND = 200e6 / 8;

    @Test
    void findsTheRateOfAShapedLinkEveryRankGetsTheSameFiguresAndASecondCallReusesThem() {
        MpiOutcome out = MpiLaunch.program(LinkProbeProgram.class)
                .testBedOf(1, 2)
                .netem("rate 200mbit")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2);
        long bps = out.longFigure(0, "bytesPerSecond");
        long startup = out.longFigure(0, "startupNs");
        for (int r = 1; r < out.ranks(); r++) {
            assertEquals(bps, out.longFigure(r, "bytesPerSecond"), out.describe("rank " + r + "'s bandwidth"));
            assertEquals(startup, out.longFigure(r, "startupNs"), out.describe("rank " + r + "'s start-up"));
        }
        for (int r = 0; r < out.ranks(); r++) {
            // Measured again, the figures would differ in their last digits: the same ones were reused.
            assertEquals(1, out.longFigure(r, "repeatedSame"), out.describe("rank " + r + "'s second call"));
        }
        // TCP's and IP's headers take about 5% of a shaped link, and the shaper's bucket lets a burst
        // pass at the veth's rate (26.0 MB/s measured here on 25); a probe off by more than a third is wrong.
        assertTrue(
                bps > 0.67 * SHAPED_BYTES_PER_SECOND && bps < 1.33 * SHAPED_BYTES_PER_SECOND,
                out.describe("measured " + bps + " B/s on a link shaped to " + SHAPED_BYTES_PER_SECOND));
        assertTrue(startup > 0 && startup < 5_000_000, out.describe("start-up " + startup + " ns"));
    }
}
