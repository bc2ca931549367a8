package org.hbcast.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.schedule.TreeShape;
import org.junit.jupiter.api.Test;

/** Which tree a header's large payload takes ({@link PayloadTree#of}): a pure function. */
class PayloadTreeTest {
    private static final double[][] NETWORKS = {{57.6e-6, 1.12e8}, {30e-6, 1.1e9}, {0, 1e9}, {1e-6, 1e3}, {0.5, 1e13}};

    /**
     * Against the rule worked out another way: the chain fills in {@code n - 1} sends with one copy a
     * call at each leader; the binomial tree fills in {@code ceil(log2 n)} with as many at its root;
     * of those no slower to fill than the relay's own k-nomial tree, the fewest copies at the busiest
     * leader, then the quicker fill; from one byte past a start-up's worth.
     */
    @Test
    void theTreeFillingNoSlowerWhoseBusiestLeaderSendsLeastPastAStartUpsWorthOfBytes() {
        for (int radix = 2; radix <= 6; radix++) {
            for (int leaders = 1; leaders <= 64; leaders++) {
                for (double[] n : NETWORKS) {
                    String where = leaders + " leaders, radix " + radix + ", " + n[0] + " s, " + n[1] + " B/s";
                    PayloadTree got = PayloadTree.of(leaders, radix, n[0], n[1]);
                    PayloadTree want = expected(leaders, radix, n[0] * n[1]);
                    assertEquals(want, got, where);
                    if (got != PayloadTree.NONE) {
                        double bytes = n[0] * n[1];
                        assertTrue(got.fromBytes() - 1 <= bytes && bytes < got.fromBytes(), where);
                        assertTrue(!got.takes(got.fromBytes() - 1) && got.takes(got.fromBytes()), where);
                    }
                }
            }
        }
    }

    /** At radix 4: a chain where the tree is a star (3 to 5 leaders), the binomial tree from 6 on. */
    @Test
    void atTheRelaysRadixStarsTakeAChainAndWiderTreesTheBinomialTree() {
        for (int leaders = 1; leaders <= 64; leaders++) {
            PayloadTree t = PayloadTree.of(leaders, CallHeaders.HEADER_RADIX, 57.6e-6, 1.12e8);
            if (leaders < 3) {
                assertEquals(PayloadTree.NONE, t, leaders + " leaders");
            } else if (leaders <= CallHeaders.HEADER_RADIX + 1) {
                assertEquals(TreeShape.CHAIN, t.shape(), leaders + " leaders");
            } else {
                assertEquals(TreeShape.KNOMIAL, t.shape(), leaders + " leaders");
                assertEquals(2, t.radix(), leaders + " leaders");
            }
        }
    }

    /** The shaped beds' measured link: from 6,452 B of payload (8 KiB and up); with built-in figures past 32 KiB. */
    @Test
    void onTheShapedBedsTheTreesTakeEightKibibytesAndUp() {
        int radix = CallHeaders.HEADER_RADIX;
        PayloadTree three = PayloadTree.of(3, radix, 57.6e-6, 1.12e8);
        assertTrue(three.fromBytes() > 4096 && three.fromBytes() <= 8192, "from " + three.fromBytes());
        assertEquals(
                new PayloadTree(three.fromBytes(), TreeShape.KNOMIAL, 2), PayloadTree.of(8, radix, 57.6e-6, 1.12e8));
        assertEquals(33_001, PayloadTree.of(3, radix, 30e-6, 1.1e9).fromBytes());
        assertEquals(
                "headers of 6452 B of payload and more down a binomial tree of the hosts' leaders",
                PayloadTree.of(8, radix, 57.6e-6, 1.12e8).describe());
        assertEquals(
                "headers of 6452 B of payload and more down a chain of the hosts' leaders",
                PayloadTree.of(3, radix, 57.6e-6, 1.12e8).describe());
    }

    @Test
    void aTreeNoRelayCanRunIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new PayloadTree(0, TreeShape.CHAIN, 1));
        assertThrows(IllegalArgumentException.class, () -> new PayloadTree(64, TreeShape.TWO_TREE, 2));
        assertThrows(IllegalArgumentException.class, () -> new PayloadTree(64, TreeShape.KNOMIAL, 1));
    }

    private static PayloadTree expected(int leaders, int radix, double startUpBytes) {
        if (leaders < 3 || startUpBytes >= Integer.MAX_VALUE - 1) {
            return PayloadTree.NONE;
        }
        int ownFill = TreeShape.KNOMIAL.fillSends(leaders, radix);
        int ownBusiest = rootChildren(leaders, radix);
        int log2 = 32 - Integer.numberOfLeadingZeros(leaders - 1);
        int from = (int) startUpBytes + 1;
        // The chain, where it fills no slower: one copy a call beats any tree's root.
        if (leaders - 1 <= ownFill) {
            return new PayloadTree(from, TreeShape.CHAIN, 1);
        }
        if (radix != 2 && log2 <= ownFill && (log2 < ownBusiest || log2 == ownBusiest && log2 < ownFill)) {
            return new PayloadTree(from, TreeShape.KNOMIAL, 2);
        }
        return PayloadTree.NONE;
    }

    /** The k-nomial root's children: {@code radix - 1} at each distance {@code radix^d} below {@code leaders}. */
    private static int rootChildren(int leaders, int radix) {
        int count = 0;
        for (long step = 1; step < leaders; step *= radix) {
            for (int j = 1; j < radix && j * step < leaders; j++) {
                count++;
            }
        }
        return count;
    }
}
