package org.hbcast.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProgressWaitTest {
    private static final Awaited NOTHING = () -> "nothing";

    @AfterEach
    void clearProperty() {
        System.clearProperty(ProgressWait.YIELDS_PROPERTY);
    }

    @Test
    void yieldsLongOnlyWhereACoreIsLeftOverAfterEveryRank() {
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yieldsBeforePark(4, 16), "the H100 machine");
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yieldsBeforePark(15, 16));
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(16, 16), "no core left over");
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(17, 16));
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(4, 2), "this project's machine");
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(2, 2));
        assertEquals(ProgressWait.FEW_YIELDS, ProgressWait.yieldsBeforePark(1, 1), "a rank bound to one core");
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yieldsBeforePark(1, 2));
        assertTrue(ProgressWait.MANY_YIELDS > 50 * ProgressWait.FEW_YIELDS);
    }

    @Test
    void aStallTimesOutAfterTheTimeoutAndWorkRestartsIt() throws Exception {
        ProgressWait wait = new ProgressWait(new org.agrona.concurrent.NoOpIdleStrategy(), 20_000_000L);
        wait.reset();
        long start = System.nanoTime();
        int rounds = 0;
        while (!wait.timedOut(0, NOTHING)) {
            rounds++;
            if (rounds == 1000) {
                // Work before the timeout restarts the stall.
                Thread.sleep(15);
                assertTrue(!wait.timedOut(1, NOTHING));
            }
        }
        long waited = System.nanoTime() - start;
        assertTrue(waited >= 15_000_000L + 20_000_000L, "timed out after " + waited + " ns");
        assertTrue(waited < 2_000_000_000L, "timed out after " + waited + " ns");
        assertTrue(rounds >= ProgressWait.ROUNDS_PER_CLOCK_READ);
        // The clock is read every ROUNDS_PER_CLOCK_READ idle rounds: the first read starts the stall, the
        // second ends it where the timeout is nil.
        ProgressWait nil = new ProgressWait(new org.agrona.concurrent.NoOpIdleStrategy(), 0);
        nil.reset();
        for (int r = 1; r < 2 * ProgressWait.ROUNDS_PER_CLOCK_READ; r++) {
            assertTrue(!nil.timedOut(0, NOTHING), "round " + r);
        }
        assertTrue(nil.timedOut(0, NOTHING));
    }

    @Test
    void aLimitThatWaitsOnReportsOncePerPeriodNamingTheCallAndWhatItAwaits() {
        long period = TimeUnit.MILLISECONDS.toNanos(40);
        List<String> lines = new ArrayList<>();
        List<Long> at = new ArrayList<>();
        WaitLimit limit = WaitLimit.reportingTo(period, "hbcast bcast on rank 3", line -> {
            lines.add(line);
            at.add(System.nanoTime());
        });
        limit.call(7);
        int[] asked = {0};
        Awaited awaited = () -> {
            asked[0]++;
            return "the call's header from root 0";
        };
        ProgressWait wait = new ProgressWait(new NoOpIdleStrategy(), limit);
        wait.reset();
        long start = System.nanoTime();
        long stop = start + 5 * period + period / 2;
        while (System.nanoTime() < stop) {
            assertFalse(wait.timedOut(0, awaited), "a limit that waits on gave up");
        }
        // The stall starts at the first read of the clock, a few rounds in: 4 or 5 periods have passed.
        assertTrue(lines.size() == 4 || lines.size() == 5, lines.toString());
        assertEquals(lines.size(), asked[0], "what is awaited is asked for a report only");
        for (int i = 0; i < at.size(); i++) {
            assertTrue(at.get(i) - start > (i + 1) * period, "report " + i + " came before " + (i + 1) + " periods");
        }
        for (String line : lines) {
            assertTrue(
                    line.matches("hbcast bcast on rank 3: call 7 still waiting after \\d+\\.\\d s for the call's header"
                            + " from root 0; waiting on, as Open MPI would \\(HBCAST_TIMEOUT_FAILS=1 fails the call"
                            + " instead\\)"),
                    line);
        }
        // Work ends the stall: the next report is a whole period after the stall starts again.
        assertFalse(wait.timedOut(1, awaited));
        int before = lines.size();
        long again = System.nanoTime() + period / 2;
        while (System.nanoTime() < again) {
            assertFalse(wait.timedOut(0, awaited));
        }
        assertEquals(before, lines.size(), "reported less than a period after work");
    }

    @Test
    void givingUpIsOptInAndReportsNothing() {
        long period = TimeUnit.MILLISECONDS.toNanos(30);
        assertTrue(WaitLimit.ofCalls(period, true, 2).givesUp());
        assertFalse(WaitLimit.ofCalls(period, false, 2).givesUp());
        int[] asked = {0};
        ProgressWait wait = new ProgressWait(new NoOpIdleStrategy(), WaitLimit.ofCalls(period, true, 2));
        wait.reset();
        long start = System.nanoTime();
        while (!wait.timedOut(0, () -> "peer " + ++asked[0])) {
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5), "never gave up");
        }
        assertTrue(System.nanoTime() - start >= period);
        assertEquals(0, asked[0], "a wait that gives up leaves the message to its caller");
    }

    @Test
    void thePropertyOverridesTheRuleAndABadValueIsNamed() {
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yields(4, 16));
        System.setProperty(ProgressWait.YIELDS_PROPERTY, "20");
        assertEquals(20, ProgressWait.yields(4, 16));
        System.setProperty(ProgressWait.YIELDS_PROPERTY, " 0 ");
        assertEquals(0, ProgressWait.yields(4, 16));
        System.setProperty(ProgressWait.YIELDS_PROPERTY, " ");
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yields(4, 16), "blank is unset, as for every setting");
        for (String bad : new String[] {"-1", "many"}) {
            System.setProperty(ProgressWait.YIELDS_PROPERTY, bad);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ProgressWait.yields(4, 16), bad);
            assertTrue(e.getMessage().contains("-Dhbcast.wait.yields=" + bad), e.getMessage());
        }
    }
}
