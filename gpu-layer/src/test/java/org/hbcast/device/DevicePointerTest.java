package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
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
    void theAddressOfAProgramsPointerOrDevicePointerIncludesItsByteOffset() {
        final CUdeviceptr program = DevicePointer.place(new CUdeviceptr(), 0x7f00_0000_1000L);
        assertEquals(0x7f00_0000_1000L, DevicePointer.addressOf(program));
        assertEquals(0x7f00_0000_1040L, DevicePointer.addressOf(program.withByteOffset(0x40)));
        assertEquals(0x2010, DevicePointer.addressOf(new DevicePointer(0x2000).withByteOffset(16)));
        assertEquals(0, DevicePointer.addressOf(new Pointer()));
        assertThrows(IllegalArgumentException.class, () -> DeviceBuffer.ofUserMemory(new CUdeviceptr(), 16, 0));
        assertThrows(IllegalArgumentException.class, () -> DeviceBuffer.ofUserMemory((Pointer) null, 16, 0));
    }

    @Test
    void withoutADriverDeviceMemoryIsRefusedWithTheReason() {
        final CudaDevices devices = CudaDevices.get();
        assumeFalse(devices.available(), "a CUDA device is present; the GPU tests cover allocation");
        final CudaException e = assertThrows(CudaException.class, () -> DeviceBuffer.allocate(1024, 0));
        assertEquals("no CUDA device: " + devices.unavailableReason(), e.getMessage());
        assertThrows(CudaException.class, () -> PinnedBuffer.allocate(1024));
        // The program's own memory is described all the same, and its problem says CUDA could not look.
        final DeviceBuffer program = DeviceBuffer.ofUserMemory(0x7f00_0000_1000L, 1024, 0);
        assertTrue(program.isUserMemory());
        assertTrue(
                program.userMemoryProblem().startsWith("CUDA cannot describe the memory at 0x7f0000001000"),
                program.userMemoryProblem());
        program.close();
    }
}
