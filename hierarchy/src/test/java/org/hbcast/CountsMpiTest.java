package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
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
    /**
     * Cases per plan in {@link CountsProgram}: 25 names and ints, 26 larger receivers, 4 mismatches
     * each followed by a good call.
     */
    private static final int CASES_PER_PLAN = 5 * (1 + 4) + (8 * 3 + 2) + 4 * 2;
    /** Cases on communicators of one rank: 3 kinds x 4 counts and a bad root, on COMM_SELF and a split. */
    private static final int SINGLES = 2 * (3 * 4 + 1);

    private static final List<String> PLANS = List.of("auto", "native", "knomial", "ring", "fanout");

    private static void assertEveryRankRanEveryCase(MpiOutcome out, int ranks) {
        assertEquals(ranks, out.ranks());
        out.assertAllRanksOk().assertCasesOnEveryRank(PLANS.size() * CASES_PER_PLAN + SINGLES);
        for (int r = 0; r < ranks; r++) {
            assertEquals(String.join("+", PLANS), out.note(r, "plans"), out.describe("rank " + r));
            for (String plan : PLANS) {
                assertEquals(
                        CASES_PER_PLAN, out.longFigure(r, "cases " + plan), out.describe("rank " + r + ", " + plan));
            }
            assertEquals(SINGLES, out.longFigure(r, "singles"), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
    }

    @Test
    void oneNodeOfFour() {
        assertEveryRankRanEveryCase(
                MpiLaunch.program(CountsProgram.class)
                        .ranks(4)
                        .env("HBCAST_TIMEOUT_S", "20")
                        .env("HBCAST_TIMEOUT_FAILS", "1")
                        .run(),
                4);
    }

    @ParameterizedTest(name = "virtual nodes {0}")
    @ValueSource(strings = {"2,2", "1,2", "3,1,2"})
    void virtualNodes(String nodes) {
        MpiLaunch launch = MpiLaunch.program(CountsProgram.class)
                .nodeSizes(nodes)
                .env("HBCAST_TIMEOUT_S", "20")
                .env("HBCAST_TIMEOUT_FAILS", "1");
        assertEveryRankRanEveryCase(
                launch.run(),
                nodes.chars().filter(Character::isDigit).map(c -> c - '0').sum());
    }

    @Test
    void testBedTwoHostsOfTwo() {
        assertEveryRankRanEveryCase(
                MpiLaunch.program(CountsProgram.class)
                        .testBed(2, 2)
                        .env("HBCAST_TIMEOUT_S", "20")
                        .env("HBCAST_TIMEOUT_FAILS", "1")
                        .run(),
                4);
    }
}
