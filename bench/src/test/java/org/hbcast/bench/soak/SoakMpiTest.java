package org.hbcast.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.BcastOptions.TreeShape;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/**
 * A short soak on 4 ranks in 2 virtual nodes: every call verified, no error, memory flat; and the
 * forced plans of {@code --plans}, one segment each.
 */
class SoakMpiTest {
    private static final Pattern RESULT =
            Pattern.compile(Soak.RESULT + " calls=(\\d+) bytes=(\\d+) errors=(\\d+) .*memory=(\\w+)");

    @Test
    void shortSoakHasNoErrorsAndFlatMemory() {
        MpiOutcome out = MpiLaunch.program(Soak.class)
                .nodeSizes("2,2")
                .timeout(Duration.ofSeconds(240))
                .jvmOption("-Xms384m")
                .jvmOption("-Xmx384m")
                .jvmOption("-XX:+AlwaysPreTouch")
                .args("--duration", "25s", "--seed", "7", "--max-bytes", "64M", "--no-progress")
                .run();
        Matcher m = RESULT.matcher(out.output());
        assertTrue(m.find(), out.describe("no " + Soak.RESULT + " line"));
        assertTrue(Long.parseLong(m.group(1)) > 50, out.describe("too few calls"));
        assertTrue(m.group(3).equals("0"), out.describe("soak errors"));
        assertTrue(m.group(4).equals("flat"), out.describe("memory grew"));
        assertTrue(!out.timedOut() && out.exitCode() == 0, out.describe("exit status " + out.exitCode()));
        out.assertNoLeakedSegments();
    }

    private static final Pattern PLAN = Pattern.compile(
            Soak.PLAN_RESULT + " plan=(\\S+) calls=(\\d+) bytes=\\d+ errors=(\\d+) failures=(\\d+) timeouts=(\\d+)"
                    + " rss_start=(\\d+) rss_end=(\\d+) .* shmem_end=(\\d+) .*jvm_native_end=(-?\\d+) memory=(\\w+)");

    /** Forced plans, one segment each: every one runs its calls, right, and reports its memory. */
    @Test
    void forcedPlansRunInTurnEachVerified() {
        String[] plans = {"native", "knomial:chain:64K", "hierarchical:fanout:two-tree", "hierarchical:ring:knomial:4K"
        };
        MpiOutcome out = MpiLaunch.program(Soak.class)
                .nodeSizes("2,2")
                .timeout(Duration.ofSeconds(240))
                .jvmOption("-Xms256m")
                .jvmOption("-Xmx256m")
                .jvmOption("-XX:NativeMemoryTracking=summary")
                .args(
                        "--plans",
                        String.join(",", plans),
                        "--calls",
                        "40",
                        "--warmup",
                        "10",
                        "--max-bytes",
                        "8M",
                        "--seed",
                        "5",
                        "--no-progress")
                .run();
        Matcher m = PLAN.matcher(out.output());
        for (String plan : plans) {
            assertTrue(m.find(), out.describe("no " + Soak.PLAN_RESULT + " line for " + plan));
            assertEquals(plan, m.group(1), out.describe("plans in the order given"));
            assertEquals("40", m.group(2), out.describe(plan + ": calls"));
            assertEquals("0", m.group(3), out.describe(plan + ": wrong data"));
            assertEquals("0", m.group(4), out.describe(plan + ": failed calls"));
            assertEquals("0", m.group(5), out.describe(plan + ": time-outs"));
            assertTrue(Long.parseLong(m.group(7)) > 0 && Long.parseLong(m.group(8)) >= 0, out.describe(plan + ": rss"));
            assertTrue(Long.parseLong(m.group(9)) > 0, out.describe(plan + ": the JVM's native memory (NMT is on)"));
        }
        assertTrue(out.output().contains("whole soak: resident set"), out.describe("no whole-soak line"));
        assertTrue(!out.timedOut() && out.exitCode() != 1, out.describe("exit status " + out.exitCode()));
        out.assertNoLeakedSegments();
    }

    @Test
    void planNamesParseAndPrintTheSame() {
        for (SoakPlan p : SoakPlan.all()) {
            assertEquals(p, SoakPlan.parse(p.toString()), p.toString());
        }
        assertEquals(14, SoakPlan.all().size());
        assertEquals(
                SoakPlan.parse("hierarchical:two-tree:fanout:64k"), SoakPlan.parse("HIERARCHICAL:fanout:two_tree:64K"));
        assertEquals(
                new SoakPlan(Algorithm.KNOMIAL, IntraNode.AUTO, TreeShape.KNOMIAL, 0),
                SoakPlan.parse("knomial:knomial"));
        assertEquals(SoakPlan.all(), SoakPlan.parseList(List.of("all")));
        assertThrows(IllegalArgumentException.class, () -> SoakPlan.parse("native:ring"));
        assertThrows(IllegalArgumentException.class, () -> SoakPlan.parse("knomial:fanout"));
        assertThrows(IllegalArgumentException.class, () -> SoakPlan.parse("hierarchical:100"));
        assertThrows(IllegalArgumentException.class, () -> SoakPlan.parse("hierarchical:star"));
    }

    @Test
    void drawsAreTheSameOnEveryRankAndCoverZeroAndTheMaximum() {
        var kinds = java.util.List.of(SoakKind.ARRAYS, SoakKind.BUFFERS, SoakKind.VIEWS);
        var algorithms = java.util.List.of(Algorithm.values());
        boolean zero = false;
        boolean large = false;
        for (long n = 0; n < 20_000; n++) {
            SoakCall a = SoakCall.draw(3, n, kinds, algorithms, 64 << 20, 14);
            assertTrue(a.equals(SoakCall.draw(3, n, kinds, algorithms, 64 << 20, 14)), "draw " + n);
            assertTrue(a.bytes() >= 0 && a.bytes() <= 64 << 20 && a.root() >= 0 && a.root() < 14, a.toString());
            zero |= a.count() == 0;
            large |= a.bytes() > 32 << 20;
        }
        assertTrue(zero && large, "sizes from 0 to the maximum");
    }
}
