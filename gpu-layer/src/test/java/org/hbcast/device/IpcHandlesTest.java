package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import jcuda.runtime.cudaIpcMemHandle;
import org.junit.jupiter.api.Test;

/** JCuda's private handle layout, which IpcHandles reads by reflection: checked here without a GPU. */
class IpcHandlesTest {
    @Test
    void theJCudaOnTheClassPathIsTheOneTheReflectionWasCheckedAgainst() {
        assertEquals(
                IpcHandles.CHECKED_JCUDA,
                IpcHandles.jcudaVersion(),
                "JCuda changed: check that cudaIpcMemHandle still keeps its 64 bytes in 'reserved' and that"
                        + " DevicePointer's fields still hold, then update IpcHandles.CHECKED_JCUDA");
    }

    @Test
    void handlesRoundTripThroughTheirBytes() {
        final byte[] bytes = new byte[IpcHandles.HANDLE_BYTES];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 37 + 11);
        }
        final cudaIpcMemHandle handle = IpcHandles.handleOf(bytes);
        assertArrayEquals(bytes, IpcHandles.bytesOf(handle));
        // A copy: changing the result does not change the handle.
        IpcHandles.bytesOf(handle)[0] = 0;
        assertArrayEquals(bytes, IpcHandles.bytesOf(handle));
        assertThrows(IllegalArgumentException.class, () -> IpcHandles.handleOf(new byte[63]));
    }
}
