package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import org.hbcast.transport.NodeTransport;
import org.junit.jupiter.api.Test;

/** The CUDA ring's descriptors in the node set-up: what one rank encodes, every rank decodes. */
class CudaRingTransportDescriptorTest {
    @Test
    void pathsAndSlotDescriptorsComeBackAsSent() {
        String[] sent = new String[3];
        byte[][] handles = new byte[3][IpcDescriptor.BYTES];
        for (int p = 0; p < 3; p++) {
            Arrays.fill(handles[p], (byte) (p * 37 + 1));
            handles[p][0] = (byte) '|';
            sent[p] = CudaRingTransport.descriptor("/dev/shm/hbcast-ring|" + p, handles[p]);
        }
        String[] paths = new String[3];
        byte[] slots = new byte[3 * IpcDescriptor.BYTES];
        CudaRingTransport.decode(sent, paths, slots);
        for (int p = 0; p < 3; p++) {
            assertEquals("/dev/shm/hbcast-ring|" + p, paths[p]);
            assertArrayEquals(
                    handles[p], Arrays.copyOfRange(slots, p * IpcDescriptor.BYTES, (p + 1) * IpcDescriptor.BYTES));
        }
        assertEquals(true, sent[0].length() < NodeTransport.DESCRIPTOR_BYTES / 2, "room for long paths: " + sent[0]);
    }

    @Test
    void aRankThatSentNoDescriptorIsNamed() {
        String good = CudaRingTransport.descriptor("/dev/shm/x", new byte[IpcDescriptor.BYTES]);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> CudaRingTransport.decode(
                        new String[] {good, ""}, new String[2], new byte[2 * IpcDescriptor.BYTES]));
        assertEquals("node rank 1 sent no CUDA ring descriptor: ''", e.getMessage());
    }
}
