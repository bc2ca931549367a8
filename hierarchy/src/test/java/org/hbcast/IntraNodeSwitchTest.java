package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class IntraNodeSwitchTest {
    @Test
    void ringUnlessFanoutIsAskedFor() {
        assertFalse(HierarchicalBcast.intraNodeFanout(null));
        assertFalse(HierarchicalBcast.intraNodeFanout(" "));
        assertFalse(HierarchicalBcast.intraNodeFanout("ring"));
        assertTrue(HierarchicalBcast.intraNodeFanout("fanout"));
        assertTrue(HierarchicalBcast.intraNodeFanout(" fanout "));
    }

    @Test
    void anythingElseIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> HierarchicalBcast.intraNodeFanout("fan-out"));
        assertTrue(e.getMessage().contains("HBCAST_INTRA must be ring or fanout, not 'fan-out'"), e.getMessage());
    }
}
