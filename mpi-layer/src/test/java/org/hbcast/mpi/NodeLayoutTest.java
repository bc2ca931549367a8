package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NodeLayoutTest {

    @Test
    void patentLayoutPlacesRanksConsecutively() {
        NodeLayout l = NodeLayout.parse("8,3,3", 14);
        assertEquals(3, l.nodeCount());
        assertArrayEquals(new int[] {8, 3, 3}, l.nodeSizes());
        assertEquals(0, l.nodeOf(7));
        assertEquals(1, l.nodeOf(8));
        assertEquals(2, l.nodeOf(13));
        assertEquals(2, l.positionOf(10));
        assertEquals(11, l.rankAt(2, 0));
        assertEquals(8, l.maxNodeSize());
    }

    @Test
    void spacesAreTolerated() {
        assertEquals(NodeLayout.fromNodeSizes(new int[] {2, 2}), NodeLayout.parse(" 2 , 2 ", 4));
    }

    @Test
    void badTextNamesTheProblem() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeLayout.parse("2,3", 4))
                .getMessage()
                .contains("sums to 5 ranks but the communicator has 4"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeLayout.parse("2,0,2", 4))
                .getMessage()
                .contains("not positive"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeLayout.parse("2,-1,3", 4))
                .getMessage()
                .contains("not positive"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeLayout.parse("two,2", 4))
                .getMessage()
                .contains("'two' is not a whole number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeLayout.parse("2,,2", 4))
                .getMessage()
                .contains("is not a whole number"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeLayout.parse("  ", 4))
                .getMessage()
                .contains("empty"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeLayout.parse("99999999999", 4))
                .getMessage()
                .contains("not a whole number"));
    }

    @Test
    void nodeKeysGroupInterleavedRanksAndKeepOrder() {
        // Round-robin placement: ranks 0,2,4 on one host, 1,3,5 on the other.
        NodeLayout l = NodeLayout.fromNodeKeys(new int[] {0, 1, 0, 1, 0, 1});
        assertEquals(2, l.nodeCount());
        assertEquals(0, l.nodeOf(4));
        assertEquals(1, l.nodeOf(5));
        assertEquals(2, l.positionOf(4));
        assertEquals(3, l.rankAt(1, 1));
    }

    @Test
    void everyRankHasExactlyOnePlace() {
        for (int a = 1; a <= 6; a++) {
            for (int b = 1; b <= 6; b++) {
                NodeLayout l = NodeLayout.fromNodeSizes(new int[] {a, b});
                for (int r = 0; r < a + b; r++) {
                    assertEquals(r, l.rankAt(l.nodeOf(r), l.positionOf(r)));
                }
            }
        }
    }

    @Test
    void theRootLeadsItsNodeAndTheLowestRankEveryOther() {
        NodeLayout l = NodeLayout.fromNodeKeys(new int[] {0, 1, 0, 1, 2, 1});
        int[] out = new int[3];
        assertArrayEquals(new int[] {0, 1, 4}, l.leaders(0, out));
        assertArrayEquals(new int[] {0, 5, 4}, l.leaders(5, out));
        assertArrayEquals(new int[] {2, 1, 4}, l.leaders(2, out));
        for (int root = 0; root < l.size(); root++) {
            int[] leaders = l.leaders(root, new int[3]);
            for (int n = 0; n < 3; n++) {
                assertEquals(n, l.nodeOf(leaders[n]));
                assertEquals(n == l.nodeOf(root) ? root : l.rankAt(n, 0), leaders[n]);
            }
        }
    }
}
