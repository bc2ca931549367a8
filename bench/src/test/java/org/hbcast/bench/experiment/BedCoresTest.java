package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** HBCAST_BED_CORES: a bed's hosts on cores of their own where every host can have one. */
class BedCoresTest {
    @Test
    void autoGivesOwnCoresWhereEveryHostHasOne() {
        assertTrue(BedCores.own(null, 2, 2));
        assertTrue(BedCores.own("", 1, 2));
        assertTrue(BedCores.own("auto", 2, 16));
        assertFalse(BedCores.own(null, 3, 2));
        assertFalse(BedCores.own("auto", 8, 2));
    }

    @Test
    void ownAndSharedAreObeyed() {
        assertTrue(BedCores.own("own", 8, 2));
        assertFalse(BedCores.own("shared", 1, 16));
    }

    @Test
    void anythingElseIsRefusedByName() {
        assertEquals(
                "HBCAST_BED_CORES must be own, shared or auto, not 'mine'",
                assertThrows(IllegalArgumentException.class, () -> BedCores.own("mine", 2, 2))
                        .getMessage());
    }
}
