package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.port.MpiFailure;
import org.junit.jupiter.api.Test;

/** The queue of non-blocking calls: issue order, the outstanding limit, slots reused only once seen complete. */
class RequestQueueTest {
    @Test
    void runsCallsInIssueOrderAndRefusesPastTheLimit() throws MpiFailure {
        RequestQueue q = new RequestQueue(3);
        List<PendingBcast> issued = new ArrayList<>();
        for (int i = 0; i < RequestQueue.MAX_OUTSTANDING; i++) {
            issued.add(q.add(new byte[1], i, ElementType.BYTE, null, 0));
        }
        MpiFailure refused = assertThrows(MpiFailure.class, () -> q.add(new byte[1], 1, ElementType.BYTE, null, 0));
        assertTrue(
                refused.getMessage().contains("rank 3") && refused.getMessage().contains("64"), refused.getMessage());
        Set<Integer> slots = new HashSet<>();
        for (PendingBcast p : issued) {
            assertSame(p, q.first());
            assertEquals(issued.indexOf(p), p.count);
            assertTrue(slots.add(p.index()), "slot " + p.index() + " given twice");
            p.done(null);
            q.removeFirst();
        }
        assertNull(q.first());
        // Done but not yet seen complete: still outstanding.
        assertThrows(MpiFailure.class, () -> q.add(new byte[1], 1, ElementType.BYTE, null, 0));
        q.release(issued.get(5));
        q.release(issued.get(5));
        assertSame(issued.get(5), q.add(new byte[1], 1, ElementType.BYTE, null, 0));
        assertThrows(MpiFailure.class, () -> q.add(new byte[1], 1, ElementType.BYTE, null, 0));
    }

    /** Random issues, completions and releases against a model: no slot is ever in two calls at once. */
    @Test
    void randomUseNeverSharesASlot() throws MpiFailure {
        Random rnd = new Random(11);
        RequestQueue q = new RequestQueue(0);
        ArrayDeque<PendingBcast> running = new ArrayDeque<>();
        List<PendingBcast> done = new ArrayList<>();
        Set<PendingBcast> held = new HashSet<>();
        for (int step = 0; step < 100_000; step++) {
            int what = rnd.nextInt(3);
            if (what == 0) {
                if (held.size() == RequestQueue.MAX_OUTSTANDING) {
                    assertThrows(MpiFailure.class, () -> q.add(null, 0, ElementType.BYTE, null, 0));
                } else {
                    PendingBcast p = q.add(null, step, ElementType.BYTE, null, 0);
                    assertTrue(held.add(p), "a held slot given again");
                    assertFalse(p.isDone());
                    running.add(p);
                }
            } else if (what == 1 && !running.isEmpty()) {
                PendingBcast p = running.poll();
                assertSame(p, q.first());
                p.done(null);
                q.removeFirst();
                done.add(p);
            } else if (what == 2 && !done.isEmpty()) {
                PendingBcast p = done.remove(rnd.nextInt(done.size()));
                q.release(p);
                assertTrue(p.isDone(), "a freed request still says done until reused");
                held.remove(p);
            }
        }
    }
}
