package org.hbcast.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ProgressWaitTest {

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
        while (!wait.timedOut(0)) {
            rounds++;
            if (rounds == 1000) {
                // Work before the timeout restarts the stall.
                Thread.sleep(15);
                assertTrue(!wait.timedOut(1));
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
            assertTrue(!nil.timedOut(0), "round " + r);
        }
        assertTrue(nil.timedOut(0));
    }

    @Test
    void thePropertyOverridesTheRuleAndABadValueIsNamed() {
        assertEquals(ProgressWait.MANY_YIELDS, ProgressWait.yields(4, 16));
        System.setProperty(ProgressWait.YIELDS_PROPERTY, "20");
        assertEquals(20, ProgressWait.yields(4, 16));
        System.setProperty(ProgressWait.YIELDS_PROPERTY, " 0 ");
        assertEquals(0, ProgressWait.yields(4, 16));
        for (String bad : new String[] {"-1", "many", ""}) {
            System.setProperty(ProgressWait.YIELDS_PROPERTY, bad);
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> ProgressWait.yields(4, 16), bad);
            assertTrue(e.getMessage().contains("-Dhbcast.wait.yields=" + bad), e.getMessage());
        }
    }
}
