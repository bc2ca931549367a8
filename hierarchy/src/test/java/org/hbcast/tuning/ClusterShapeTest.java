package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.hbcast.mpi.NodeLayout;
import org.junit.jupiter.api.Test;

class ClusterShapeTest {
    @Test
    void gridsAndSizeListsParseToTheSameShape() {
        assertEquals(ClusterShape.parse("2x2"), ClusterShape.parse("2,2"));
        assertEquals(ClusterShape.parse("2 x 2"), ClusterShape.parse("2+2"));
        assertEquals(List.of(8, 3, 3), ClusterShape.parse("8,3,3").nodeSizes());
        assertTrue(ClusterShape.parse("2x2 virtual").virtual());
        assertEquals(ClusterShape.of(NodeLayout.parse("8,3,3", 14), false), ClusterShape.parse("8+3+3"));
    }

    @Test
    void textIsCanonical() {
        assertEquals("2x2", ClusterShape.parse("2,2").toString());
        assertEquals("8+3+3 virtual", ClusterShape.parse("8,3,3 virtual").toString());
        assertEquals("1x1", ClusterShape.parse("1").toString());
        ClusterShape s = ClusterShape.parse("8,3,3");
        assertEquals(3, s.nodes());
        assertEquals(8, s.maxNodeSize());
        assertEquals(14, s.ranks());
    }

    @Test
    void onlyRealNodesCrossANetwork() {
        assertTrue(ClusterShape.parse("2x2").crossesNetwork());
        assertTrue(ClusterShape.parse("8,3,3").crossesNetwork());
        assertFalse(ClusterShape.parse("1x4").crossesNetwork());
        assertFalse(ClusterShape.parse("2x2 virtual").crossesNetwork());
    }

    @Test
    void nonsenseIsRefused() {
        for (String bad : new String[] {"", "2x", "0x4", "2,0", "a,b", "-1,2"}) {
            assertThrows(IllegalArgumentException.class, () -> ClusterShape.parse(bad), bad);
        }
    }
}
