package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import org.junit.jupiter.api.Test;

class StableHashTest {
    @Test
    void isFnv1aAndTellsNamesApart() {
        // FNV-1a's published 64-bit values for "" and "a".
        assertEquals(0xcbf29ce484222325L, StableHash.fnv1a64(""));
        assertEquals(0xaf63dc4c8601ec8cL, StableHash.fnv1a64("a"));
        assertNotEquals(StableHash.fnv1a64("boot:1"), StableHash.fnv1a64("boot:2"));
    }
}
