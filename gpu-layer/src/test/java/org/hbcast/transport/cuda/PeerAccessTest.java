package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PeerAccessTest {
    /** A box whose devices 0 and 1 reach each other and device 2 reaches none. */
    private static FakeCuda box() {
        return new FakeCuda(1, 3).peerAccess((device, peer) -> device < 2 && peer < 2);
    }

    @Test
    void theSameDeviceNeedsNoPeerAccessAndIsNotEvenAsked() {
        final FakeCuda box = box();
        PeerAccess.require(box, 0, 2, 1, 2);
        assertEquals(0, box.peerQueries());
    }

    @Test
    void devicesThatReachEachOtherPass() {
        final FakeCuda box = box();
        PeerAccess.require(box, 0, 0, 1, 1);
        PeerAccess.require(box, 1, 1, 0, 0);
        assertEquals(2, box.peerQueries());
    }

    @Test
    void devicesWithoutPeerAccessAreRefusedAtConnectNamingBoth() {
        final IllegalStateException refused =
                assertThrows(IllegalStateException.class, () -> PeerAccess.require(box(), 3, 1, 0, 2));
        final String message = refused.getMessage();
        assertTrue(message.contains("node rank 3 works on CUDA device 1"), message);
        assertTrue(message.contains("node rank 0, on device 2"), message);
        assertTrue(message.contains("cudaDeviceCanAccessPeer is false"), message);
    }
}
