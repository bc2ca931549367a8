package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/**
 * {@code HBCAST_BREAKDOWN=1} on real ranks (virtual nodes 2+2, the hierarchy forced): every rank
 * prints one line for the size it broadcast, with the calls it made, the leaders the tree's column,
 * every rank the node's; without the setting nothing is printed. The calls are checked byte for byte.
 */
class CallBreakdownMpiTest {
    private static final int RANKS = 4;
    private static final int CALLS = 5;
    private static final int BYTES = 48 << 10;

    @Test
    void everyRankPrintsItsCallsStagesAtClose() {
        MpiOutcome out = launch().env("HBCAST_BREAKDOWN", "1").run().assertAllRanksOk();
        for (int r = 0; r < RANKS; r++) {
            String line = line(out.output(), r);
            assertTrue(line.contains(" size <= 65536 B, " + CALLS + " calls (0 inline)"), out.describe(line));
            assertTrue(
                    line.contains(", header ") && line.contains(", plan ") && line.contains(", trials "),
                    out.describe(line));
            assertTrue(line.contains(", node done "), out.describe(line));
            boolean leader = r == 0 || r == 2;
            assertEquals(leader, line.contains(", tree done "), out.describe(line));
        }
    }

    @Test
    void withoutTheSettingNothingIsPrinted() {
        MpiOutcome out = launch().run().assertAllRanksOk();
        assertFalse(out.output().contains("hbcast breakdown"), out.describe("a breakdown printed"));
    }

    private static MpiLaunch launch() {
        return MpiLaunch.body(CallBreakdownMpiTest::calls)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical");
    }

    /** The one line rank {@code r} printed. */
    private static String line(String output, int r) {
        List<String> lines = new ArrayList<>();
        for (String l : output.split("\n")) {
            if (l.contains("hbcast breakdown: rank " + r + " (host 0 position " + r + ")")) {
                lines.add(l);
            }
        }
        assertEquals(1, lines.size(), "rank " + r + "'s breakdown lines in:\n" + output);
        return lines.get(0);
    }

    static void calls(Ranks ranks) throws Exception {
        ranks.plan(CALLS);
        try (HierarchicalBcast hb = HierarchicalBcast.create(ranks.world())) {
            for (int i = 0; i < CALLS; i++) {
                Broadcasts.check(ranks.report(), hb, ranks.world(), Payload.Kind.BUFFER, ElementType.BYTE, BYTES, 0, i);
            }
        }
    }
}
