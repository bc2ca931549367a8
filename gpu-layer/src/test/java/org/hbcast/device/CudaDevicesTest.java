package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CudaDevicesTest {
    @Test
    void probeNeverThrowsAndExplainsAnAbsence() {
        final CudaDevices devices = CudaDevices.get();
        System.out.println("CUDA devices: " + devices.names() + " " + devices.unavailableReason());
        if (devices.available()) {
            assertTrue(devices.unavailableReason().isEmpty());
            assertEquals(0, devices.deviceForLocalRank(devices.count()));
        } else {
            assertEquals(0, devices.count());
            assertFalse(devices.unavailableReason().isBlank());
            assertThrows(IllegalStateException.class, () -> devices.deviceForLocalRank(0));
        }
    }
}
