package org.hbcast.bench.soak;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hbcast.plan.Algorithm;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** A short soak on 4 ranks in 2 virtual nodes: every call verified, no error, memory flat. */
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
                .args("--duration", "40s", "--seed", "7", "--max-bytes", "64M", "--no-progress")
                .run();
        Matcher m = RESULT.matcher(out.output());
        assertTrue(m.find(), out.describe("no " + Soak.RESULT + " line"));
        assertTrue(Long.parseLong(m.group(1)) > 50, out.describe("too few calls"));
        assertTrue(m.group(3).equals("0"), out.describe("soak errors"));
        assertTrue(m.group(4).equals("flat"), out.describe("memory grew"));
        assertTrue(!out.timedOut() && out.exitCode() == 0, out.describe("exit status " + out.exitCode()));
        out.assertNoLeakedSegments();
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
