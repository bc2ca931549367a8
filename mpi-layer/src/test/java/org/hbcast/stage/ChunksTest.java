package org.hbcast.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** How a message is cut, and what a fed stage may be given: every small case. */
class ChunksTest {
    @Test
    void aFedCountMustGrowWithinTheMessage() {
        for (int count = 0; count <= 6; count++) {
            for (int available = 0; available <= count; available++) {
                for (int chunks = -1; chunks <= count + 1; chunks++) {
                    final int a = available;
                    final int c = chunks;
                    final int n = count;
                    if (chunks >= available && chunks <= count) {
                        assertEquals(chunks, Chunks.fed(available, chunks, count));
                    } else {
                        IllegalArgumentException e =
                                assertThrows(IllegalArgumentException.class, () -> Chunks.fed(a, c, n));
                        assertEquals("chunks available must grow within [" + a + ", " + n + "]: " + c, e.getMessage());
                    }
                }
            }
        }
    }

    @Test
    void aMessageIsCutFromOffsetZeroWithTheLastChunkShorter() {
        assertEquals(0, Chunks.count(0, 4));
        assertEquals(3, Chunks.count(9, 4));
        assertEquals(8, Chunks.offset(2, 4));
        assertEquals(1, Chunks.length(2, 4, 9));
        assertEquals(4, Chunks.length(1, 4, 9));
        assertThrows(IllegalArgumentException.class, () -> Chunks.count(1, 0));
        assertThrows(IllegalArgumentException.class, () -> Chunks.count(-1, 4));
    }
}
