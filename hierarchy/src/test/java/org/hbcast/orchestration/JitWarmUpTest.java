package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class JitWarmUpTest {
    /**
     * On one host the warm-up gets what is left of create's budget (none once spent: a round still
     * runs); across a network its own limit, whatever create spent before it.
     */
    @Test
    void onOneHostTheWarmUpGetsWhatIsLeftOfCreatesBudget() {
        assertTrue(JitWarmUp.ONE_HOST_CREATE_NS <= 1_000_000_000L, "a first create within a second");
        long[] spent = {
            0,
            1,
            100_000_000L,
            JitWarmUp.ONE_HOST_CREATE_NS - 1,
            JitWarmUp.ONE_HOST_CREATE_NS,
            JitWarmUp.ONE_HOST_CREATE_NS + 1,
            10_000_000_000L
        };
        for (long s : spent) {
            assertEquals(Math.max(0, JitWarmUp.ONE_HOST_CREATE_NS - s), JitWarmUp.limitNs(true, s), "spent " + s);
            assertEquals(JitWarmUp.LIMIT_NS, JitWarmUp.limitNs(false, s), "spent " + s);
            assertTrue(s + JitWarmUp.limitNs(true, s) <= Math.max(s, JitWarmUp.ONE_HOST_CREATE_NS));
        }
    }
}
