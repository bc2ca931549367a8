package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The device overload's checks, on any machine (see {@link DeviceOverloadProgram}); tagged gpu so that scripts/gpu-test runs it too. */
@Tag("gpu")
class DeviceOverloadMpiTest {
    @Test
    void refusesCleanlyAndLeavesHostPathsWorking() {
        MpiOutcome out = MpiLaunch.program(DeviceOverloadProgram.class)
                .nodeSizes("2,1")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(3);
        for (int r = 0; r < 3; r++) {
            assertTrue(
                    out.note(r, DeviceOverloadProgram.NULL_REFUSED).contains("buffer is null"),
                    out.describe("rank " + r));
        }
    }

    @Test
    void oneRankRefusingUnderTrustedCountsFailsEveryRankInsteadOfHanging() {
        // No per-call agreement under trusted counts: the refusing rank joins the first call's ring
        // set-up as a failure. Before, the others waited in that set-up for ever.
        MpiOutcome out = MpiLaunch.program(DeviceOverloadProgram.class)
                .nodeSizes("2,1")
                .env("HBCAST_COUNTS", "trusted")
                .env("HBCAST_TIMEOUT_S", "20")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(3);
        assertTrue(out.note(1, DeviceOverloadProgram.ONE_REFUSES).contains("buffer is null"), out.describe("rank 1"));
        for (int r = 0; r < 3; r++) {
            assertTrue(!out.note(r, DeviceOverloadProgram.ONE_REFUSES).isBlank(), out.describe("rank " + r));
        }
    }
}
