package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.stage.WaitLimit;
import org.junit.jupiter.api.Test;

class CallNumbersTest {
    /** Every call is stamped; only the program's are counted, and a wait names the one it is in. */
    @Test
    void theWarmUpsCallsAreStampedButNotCountedAsTheProgramsOwn() {
        WaitLimit waits = WaitLimit.givingUp(1_000_000_000L);
        CallNumbers numbers = new CallNumbers(waits);
        assertEquals(1, numbers.next());
        assertEquals(1, numbers.programCalls());
        assertTrue(waits.timedOut(() -> "x").contains("call 1 "), waits.timedOut(() -> "x"));

        numbers.warming(true);
        assertEquals(2, numbers.next());
        assertEquals(3, numbers.next());
        assertEquals(1, numbers.programCalls());
        assertTrue(waits.timedOut(() -> "x").contains("setting up"), waits.timedOut(() -> "x"));

        numbers.warming(false);
        assertEquals(4, numbers.next());
        assertEquals(2, numbers.programCalls());
        assertTrue(waits.timedOut(() -> "x").contains("call 2 "), waits.timedOut(() -> "x"));
    }
}
