package org.hbcast.schedule;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Every shape, exhaustively over 1..600 participants: a spanning tree per tree, parents and children agree. */
class TreeShapeTest {
    private static final int MAX_N = 600;

    @Test
    void everyTreeSpansAllParticipantsAndParentsAgreeWithChildren() {
        for (TreeShape shape : TreeShape.values()) {
            for (int radix = 2; radix <= (shape == TreeShape.KNOMIAL ? 5 : 2); radix++) {
                for (int n = 1; n <= MAX_N; n++) {
                    checkTrees(shape, n, radix);
                }
            }
        }
    }

    private static void checkTrees(TreeShape shape, int n, int radix) {
        int[] kids = new int[shape.maxChildren(n, radix)];
        for (int tree = 0; tree < shape.trees(); tree++) {
            int[] parentSeen = new int[n];
            java.util.Arrays.fill(parentSeen, -2);
            for (int rel = 0; rel < n; rel++) {
                int count = shape.children(tree, rel, n, radix, kids);
                assertTrue(count <= shape.maxChildren(n, radix), shape + " n=" + n + " rel=" + rel);
                for (int j = 0; j < count; j++) {
                    int child = kids[j];
                    assertTrue(child > 0 && child < n, shape + " n=" + n + ": child " + child);
                    assertEquals(-2, parentSeen[child], shape + " n=" + n + ": " + child + " has two parents");
                    parentSeen[child] = rel;
                    assertEquals(rel, shape.parent(tree, child, n, radix), shape + " n=" + n + " tree " + tree);
                }
            }
            assertEquals(-1, shape.parent(tree, 0, n, radix));
            for (int rel = 1; rel < n; rel++) {
                assertTrue(parentSeen[rel] >= 0, shape + " n=" + n + " tree " + tree + ": " + rel + " unreached");
                int hops = 0;
                for (int at = rel; at != 0; at = shape.parent(tree, at, n, radix)) {
                    assertTrue(++hops < n, shape + " n=" + n + ": a cycle through " + rel);
                }
            }
        }
    }

    @Test
    void inTwoTreesEveryoneButTheRootIsAnInnerNodeOfAtMostOneTreeAndTheDepthIsLogarithmic() {
        int[] kids = new int[2];
        for (int n = 2; n <= MAX_N; n++) {
            int depthBound = 32 - Integer.numberOfLeadingZeros(n - 1) + 1; // floor(log2(n - 1)) + 2
            for (int rel = 1; rel < n; rel++) {
                int inner = 0;
                for (int tree = 0; tree < 2; tree++) {
                    inner += TwoTree.children(tree, rel, n, kids) > 0 ? 1 : 0;
                    int hops = 0;
                    for (int at = rel; at != 0; at = TwoTree.parent(tree, at, n)) {
                        hops++;
                    }
                    assertTrue(hops <= depthBound, "n=" + n + " rel=" + rel + ": depth " + hops);
                }
                assertTrue(inner <= 1, "n=" + n + ": " + rel + " is inner in both trees");
            }
            assertEquals(1, TwoTree.children(0, 0, n, kids));
            assertEquals(1, TwoTree.children(1, 0, n, kids));
            assertEquals(1.0, TreeShape.TWO_TREE.busiestSendsPerChunk(n, 2), 1e-9, "n=" + n);
            assertEquals(1.0, TreeShape.CHAIN.busiestSendsPerChunk(n, 2), 1e-9, "n=" + n);
        }
    }

    @Test
    void smallCasesByHand() {
        int[] kids = new int[2];
        // n = 3: tree 0 is 0 -> 2 -> 1, tree 1 is 0 -> 1 -> 2.
        assertEquals(1, TwoTree.children(0, 0, 3, kids));
        assertEquals(2, kids[0]);
        assertEquals(2, TwoTree.parent(0, 1, 3));
        assertEquals(1, TwoTree.children(1, 0, 3, kids));
        assertEquals(1, kids[0]);
        assertEquals(1, TwoTree.parent(1, 2, 3));
        // n = 8 (labels 1..7): tree 0's top is 4 with children 2 and 6.
        assertEquals(2, TwoTree.children(0, 4, 8, kids));
        assertEquals(2, kids[0]);
        assertEquals(6, kids[1]);
        assertEquals(1, TreeShape.CHAIN.children(0, 3, 8, 2, kids));
        assertEquals(4, kids[0]);
        assertEquals(0, TreeShape.CHAIN.children(0, 7, 8, 2, kids));
    }

    @Test
    void fillAndBusiestSendsFollowTheShapes() {
        assertEquals(7, TreeShape.CHAIN.fillSends(8, 2));
        assertEquals(CostFigures.knomialFill(8, 2), TreeShape.KNOMIAL.fillSends(8, 2));
        assertEquals(3.0, TreeShape.KNOMIAL.busiestSendsPerChunk(8, 2), 1e-9);
        assertEquals(2.0, TreeShape.KNOMIAL.busiestSendsPerChunk(3, 2), 1e-9);
        assertEquals(0, TreeShape.TWO_TREE.fillSends(1, 2));
        assertEquals(1, TreeShape.TWO_TREE.fillSends(2, 2) - 1, "chunk 1 leaves one send after chunk 0");
    }

    @Test
    void parsesTheOptionAndNamesItInErrors() {
        assertEquals(TreeShape.TWO_TREE, TreeShape.parse("HBCAST_INTER", " Two-Tree "));
        assertEquals(TreeShape.TWO_TREE, TreeShape.parse("HBCAST_INTER", "two_tree"));
        assertEquals(TreeShape.CHAIN, TreeShape.parse("HBCAST_INTER", "chain"));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> TreeShape.parse("HBCAST_INTER", "ring"));
        assertEquals("HBCAST_INTER='ring' must be knomial, chain or two-tree", e.getMessage());
        assertEquals("two-tree", TreeShape.TWO_TREE.toString());
    }

    /** The k-nomial fill by the same rule, computed independently in rank order (parents precede children). */
    private static final class CostFigures {
        static int knomialFill(int n, int radix) {
            int[] arrival = new int[n];
            int[] kids = new int[KnomialTree.maxChildren(n, radix)];
            int latest = 0;
            for (int rel = 0; rel < n; rel++) {
                int count = KnomialTree.children(rel, n, radix, kids);
                for (int j = 0; j < count; j++) {
                    arrival[kids[j]] = arrival[rel] + j + 1;
                    latest = Math.max(latest, arrival[kids[j]]);
                }
            }
            return latest;
        }
    }
}
