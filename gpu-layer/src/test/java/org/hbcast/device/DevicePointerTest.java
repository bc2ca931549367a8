package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import jcuda.Pointer;
import org.junit.jupiter.api.Test;

class DevicePointerTest {
    @Test
    void movesWithoutANewObjectAndJCudaSeesTheAddress() {
        final DevicePointer p = new DevicePointer(0x1000);
        assertEquals(0x1000, p.address());
        assertEquals(0x7f12_3456_7890L, p.moveTo(0x7f12_3456_7890L).address());
        // JCuda's own view of the object (what its natives read) follows the move.
        assertTrue(p.toString().contains("7f1234567890"), p.toString());
        final Pointer shifted = p.withByteOffset(16);
        assertTrue(shifted.toString().contains("7f1234567890"), shifted.toString());
    }

    @Test
    void withoutADriverDeviceMemoryIsRefusedWithTheReason() {
        final CudaDevices devices = CudaDevices.get();
        assumeFalse(devices.available(), "a CUDA device is present; the GPU tests cover allocation");
        final CudaException e = assertThrows(CudaException.class, () -> DeviceBuffer.allocate(1024, 0));
        assertEquals("no CUDA device: " + devices.unavailableReason(), e.getMessage());
        assertThrows(CudaException.class, () -> PinnedBuffer.allocate(1024));
    }
}
