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
                .assertCasesOnEveryRank(2);
        for (int r = 0; r < 3; r++) {
            assertTrue(
                    out.note(r, DeviceOverloadProgram.NULL_REFUSED).contains("buffer is null"),
                    out.describe("rank " + r));
        }
    }
}
