package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Counts that differ across ranks (issue 24) on real launches: every plan delivers the root's bytes
 * and leaves the rest of larger buffers untouched; mismatches fail on every rank at once and the
 * next call works; communicators of one rank keep the data. Each rank checks every byte and counts
 * its cases; all must report all of them.
 */
class CountsMpiTest {
    /** Cases per plan in {@link CountsProgram}: 25 names and ints, 26 larger receivers, 7 mismatches. */
    private static final int CASES_PER_PLAN = 58;
    /** Cases on communicators of one rank: 3 kinds x 4 counts and a bad root, on COMM_SELF and a split. */
    private static final int SINGLES = 2 * (3 * 4 + 1);
    private static final String PLANS = "auto,native,knomial,ring,fanout";

    private static void assertEveryRankRanEveryCase(MpiOutcome out, int ranks) {
        out.assertAllRanksOk();
        for (int r = 0; r < ranks; r++) {
            assertEquals("cases=" + 5 * CASES_PER_PLAN + " plans=" + PLANS.replace(',', '+') + " singles=" + SINGLES,
                    out.verdict(r).detail(), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
    }

    @Test
    void oneNodeOfFour() {
        assertEveryRankRanEveryCase(MpiLaunch.program(CountsProgram.class).ranks(4).env("HBCAST_TIMEOUT_S", "20").run(),
                4);
    }

    @ParameterizedTest(name = "virtual nodes {0}")
    @ValueSource(strings = {"2,2", "1,2", "3,1,2"})
    void virtualNodes(String nodes) {
        MpiLaunch launch = MpiLaunch.program(CountsProgram.class).nodeSizes(nodes).env("HBCAST_TIMEOUT_S", "20");
        assertEveryRankRanEveryCase(launch.run(), nodes.chars().filter(Character::isDigit).map(c -> c - '0').sum());
    }

    @Test
    void testBedTwoHostsOfTwo() {
        assertEveryRankRanEveryCase(MpiLaunch.program(CountsProgram.class).testBed(2, 2).env("HBCAST_TIMEOUT_S", "20")
                .run(), 4);
    }
}
