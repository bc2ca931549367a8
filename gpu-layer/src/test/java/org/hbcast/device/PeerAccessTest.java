package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeerAccessTest {
    @Test
    void ranksSharingOneGpuNeedNoPeerAccessAndAskForNone() {
        List<String> asked = new ArrayList<>();
        assertNull(PeerAccess.refusal(4, p -> 0, (a, b) -> {
            asked.add(a + "->" + b);
            return false;
        }));
        assertEquals(List.of(), asked);
        assertNull(PeerAccess.refusal(1, p -> 3, (a, b) -> false));
    }

    @Test
    void aPairOfGpusWithoutPeerAccessIsRefusedNamingGpusAndRanks() {
        // Four ranks round-robin on two GPUs: every hop crosses from one GPU to the other.
        assertNull(PeerAccess.refusal(4, p -> p % 2, (a, b) -> true));
        String why = PeerAccess.refusal(4, p -> p % 2, (a, b) -> !(a == 1 && b == 0));
        assertTrue(why.startsWith("GPU 1 (node rank 1) cannot access GPU 0 (node rank 2)"), why);
        // Access is checked in the ring's direction only: 0 -> 1 -> 2 -> 0 on three GPUs.
        assertNull(PeerAccess.refusal(3, p -> p, (a, b) -> b == (a + 1) % 3));
        assertTrue(PeerAccess.refusal(3, p -> p, (a, b) -> b == (a + 2) % 3).contains("GPU 0 (node rank 0)"));
    }
}
