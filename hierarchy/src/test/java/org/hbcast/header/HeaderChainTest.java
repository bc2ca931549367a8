package org.hbcast.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Which headers go down a chain of the leaders ({@link HeaderRelay#chainFromBytes}): a pure function. */
class HeaderChainTest {
    /**
     * Only where the k-nomial tree is a star (3 to radix + 1 leaders), from one byte past what the
     * network moves in its start-up; never elsewhere.
     */
    @Test
    void aChainOnlyWhereTheTreeIsAStarPastAStartUpsWorthOfBytes() {
        double[][] networks = {{57.6e-6, 1.12e8}, {30e-6, 1.1e9}, {0, 1e9}, {1e-6, 1e3}, {0.5, 1e13}};
        for (int radix = 2; radix <= 6; radix++) {
            for (int leaders = 1; leaders <= 64; leaders++) {
                boolean star = leaders >= 3 && leaders <= radix + 1;
                for (double[] n : networks) {
                    String where = leaders + " leaders, radix " + radix + ", " + n[0] + " s, " + n[1] + " B/s";
                    int from = HeaderRelay.chainFromBytes(leaders, radix, n[0], n[1]);
                    double bytes = n[0] * n[1];
                    int want = !star || bytes >= HeaderRelay.NO_CHAIN - 1 ? HeaderRelay.NO_CHAIN : (int) bytes + 1;
                    assertEquals(want, from, where);
                    if (star && from != HeaderRelay.NO_CHAIN) {
                        assertTrue(from - 1 <= bytes && bytes < from, where + ": one byte past a start-up's worth");
                    }
                }
            }
        }
    }

    /** The shaped 4+2+2 bed's measured link: 4 KiB down the star, 8 KiB down the chain; with built-in figures past 32 KiB. */
    @Test
    void onTheShapedBedTheChainTakesEightKibibytesAndUp() {
        int radix = CallHeaders.HEADER_RADIX;
        int shaped = HeaderRelay.chainFromBytes(3, radix, 57.6e-6, 1.12e8);
        assertTrue(shaped > 4096 && shaped <= 8192, "from " + shaped);
        assertEquals(33_001, HeaderRelay.chainFromBytes(3, radix, 30e-6, 1.1e9));
        assertEquals(HeaderRelay.NO_CHAIN, HeaderRelay.chainFromBytes(2, radix, 57.6e-6, 1.12e8));
        assertEquals(HeaderRelay.NO_CHAIN, HeaderRelay.chainFromBytes(8, radix, 57.6e-6, 1.12e8));
    }
}
