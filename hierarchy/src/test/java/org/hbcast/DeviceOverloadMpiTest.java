package org.hbcast;

import org.hbcast.testing.MpiLaunch;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The device overload's checks, on any machine (see {@link DeviceOverloadProgram}); tagged gpu so that scripts/gpu-test runs it too. */
@Tag("gpu")
class DeviceOverloadMpiTest {
    @Test
    void refusesCleanlyAndLeavesHostPathsWorking() {
        MpiLaunch.program(DeviceOverloadProgram.class).nodeSizes("2,1").run().assertAllRanksOk();
    }
}
