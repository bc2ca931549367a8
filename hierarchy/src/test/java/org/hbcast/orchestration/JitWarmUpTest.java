package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.header.CallHeaders;
import org.hbcast.header.HeaderRelay;
import org.junit.jupiter.api.Test;

class JitWarmUpTest {
    /**
     * On one host the warm-up gets what is left of create's budget, and at least its least; across a
     * network its own limit, whatever create spent before it.
     */
    @Test
    void onOneHostTheWarmUpGetsWhatIsLeftOfCreatesBudget() {
        assertTrue(JitWarmUp.ONE_HOST_CREATE_NS <= 1_000_000_000L, "a first create within a second");
        assertTrue(JitWarmUp.ONE_HOST_LEAST_NS < JitWarmUp.ONE_HOST_CREATE_NS);
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
            long left = JitWarmUp.ONE_HOST_CREATE_NS - s;
            assertEquals(Math.max(JitWarmUp.ONE_HOST_LEAST_NS, left), JitWarmUp.limitNs(true, s), "spent " + s);
            assertEquals(JitWarmUp.LIMIT_NS, JitWarmUp.limitNs(false, s), "spent " + s);
            // Within the budget where create left the warm-up more than its least.
            assertTrue(left < JitWarmUp.ONE_HOST_LEAST_NS
                    || s + JitWarmUp.limitNs(true, s) == JitWarmUp.ONE_HOST_CREATE_NS);
        }
    }

    /**
     * Across a network the rounds also take the header's rest: one that goes eagerly and one that
     * does not, each inside what a header carries and the warm-up's buffer holds, spread evenly.
     */
    @Test
    void acrossANetworkTheRoundsTakeBothKindsOfRest() {
        assertEquals(0, JitWarmUp.HEADER_CALLS % JitWarmUp.REST_CALLS);
        int buffer = JitWarmUp.buffer(CallHeaders.NETWORK_INLINE_BYTES).capacity();
        boolean eager = false;
        boolean large = false;
        for (int bytes : JitWarmUp.REST_BYTES) {
            assertTrue(bytes > HeaderRelay.FIRST_PAYLOAD, bytes + " B has no rest");
            assertTrue(bytes <= CallHeaders.NETWORK_INLINE_BYTES, bytes + " B does not ride in a header");
            assertTrue(bytes <= buffer);
            eager |= bytes <= 2 * HeaderRelay.FIRST_PAYLOAD;
            large |= bytes > 2 * HeaderRelay.FIRST_PAYLOAD;
        }
        assertTrue(eager && large);
    }
}
