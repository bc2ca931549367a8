package org.hbcast.schedule;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Exhaustive checks of the k-nomial tree: every n up to 200, every root, radix 2 to 8. */
class KnomialTreeTest {

    @Test
    void everyRankReachedExactlyOnceWithConsistentParentsAndDepth() {
        for (int radix = 2; radix <= 8; radix++) {
            int[] kids = new int[64];
            for (int n = 1; n <= 200; n++) {
                int rounds = KnomialTree.rounds(n, radix);
                assertEquals(ceilLog(n, radix), rounds, "rounds n=" + n + " k=" + radix);
                assertTrue(KnomialTree.maxChildren(n, radix) <= kids.length);
                for (int root = 0; root < n; root++) {
                    int[] reached = new int[n];
                    int[] hops = new int[n];
                    int maxRound = 0;
                    // Walk the tree from the root over absolute ranks, as the broadcast does.
                    int[] queue = new int[n];
                    int head = 0;
                    int tail = 0;
                    queue[tail++] = root;
                    reached[root]++;
                    while (head < tail) {
                        int rank = queue[head++];
                        int rel = KnomialTree.toRelative(rank, root, n);
                        int count = KnomialTree.children(rel, n, radix, kids);
                        assertTrue(count <= KnomialTree.maxChildren(n, radix));
                        long lastDistance = Long.MAX_VALUE;
                        for (int c = 0; c < count; c++) {
                            int child = kids[c];
                            assertTrue(child > rel && child < n, "child range");
                            assertTrue(child - rel < lastDistance, "children farthest first");
                            lastDistance = child - rel;
                            assertEquals(rel, KnomialTree.parent(child, n, radix), "parent of child");
                            assertTrue(
                                    KnomialTree.arrivalRound(child, n, radix) > KnomialTree.arrivalRound(rel, n, radix),
                                    "child after parent");
                            int abs = KnomialTree.toAbsolute(child, root, n);
                            reached[abs]++;
                            hops[abs] = hops[rank] + 1;
                            queue[tail++] = abs;
                        }
                        maxRound = Math.max(maxRound, KnomialTree.arrivalRound(rel, n, radix));
                    }
                    int[] once = new int[n];
                    Arrays.fill(once, 1);
                    assertArrayEquals(once, reached, "each rank once: n=" + n + " root=" + root + " k=" + radix);
                    assertEquals(rounds, maxRound, "depth in rounds: n=" + n + " k=" + radix);
                    assertTrue(Arrays.stream(hops).max().getAsInt() <= rounds, "hops bounded by rounds");
                    assertEquals(-1, KnomialTree.parent(0, n, radix));
                }
            }
        }
    }

    @Test
    void binomialTreeOfEightMatchesTheTextbook() {
        int[] kids = new int[8];
        int count = KnomialTree.children(0, 8, 2, kids);
        assertArrayEquals(new int[] {4, 2, 1}, Arrays.copyOf(kids, count));
        count = KnomialTree.children(4, 8, 2, kids);
        assertArrayEquals(new int[] {6, 5}, Arrays.copyOf(kids, count));
        assertEquals(0, KnomialTree.children(7, 8, 2, kids));
        assertEquals(6, KnomialTree.parent(7, 8, 2));
    }

    @Test
    void trinomialTreeOfNine() {
        int[] kids = new int[8];
        int count = KnomialTree.children(0, 9, 3, kids);
        assertArrayEquals(new int[] {6, 3, 2, 1}, Arrays.copyOf(kids, count));
        count = KnomialTree.children(3, 9, 3, kids);
        assertArrayEquals(new int[] {5, 4}, Arrays.copyOf(kids, count));
        assertEquals(3, KnomialTree.parent(5, 9, 3));
        assertEquals(6, KnomialTree.parent(8, 9, 3));
    }

    @Test
    void badArgumentsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> KnomialTree.rounds(0, 2));
        assertThrows(IllegalArgumentException.class, () -> KnomialTree.rounds(4, 1));
        assertThrows(IllegalArgumentException.class, () -> KnomialTree.parent(4, 4, 2));
        assertThrows(IllegalArgumentException.class, () -> KnomialTree.children(-1, 4, 2, new int[4]));
    }

    private static int ceilLog(int n, int k) {
        return n == 1 ? 0 : (int) Math.ceil(Math.log(n) / Math.log(k) - 1e-12);
    }
}
