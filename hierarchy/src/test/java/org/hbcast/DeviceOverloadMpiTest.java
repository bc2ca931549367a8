package org.hbcast;

import org.hbcast.testing.MpiLaunch;
import org.junit.jupiter.api.Test;

/** The device overload's checks, on any machine (see {@link DeviceOverloadProgram}). */
class DeviceOverloadMpiTest {
    @Test
    void refusesCleanlyAndLeavesHostPathsWorking() {
        MpiLaunch.program(DeviceOverloadProgram.class).nodeSizes("2,1").run().assertAllRanksOk();
    }
}
