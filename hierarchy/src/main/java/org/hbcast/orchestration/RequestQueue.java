package org.hbcast.orchestration;

import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiFailure;

/**
 * An instance's non-blocking calls, in the order the program issued them (the order every rank runs
 * them in, as MPI matches collectives): at most {@link #MAX_OUTSTANDING} calls that the program has
 * not yet seen complete, in slots made once. Past that limit an {@code iBcast} is refused before
 * anything is sent. Not thread-safe: used under the instance's guard.
 */
final class RequestQueue {
    /** Most non-blocking calls issued and not yet seen complete by {@code test} or {@code waitFor}. */
    static final int MAX_OUTSTANDING = 64;

    private final PendingBcast[] slots = new PendingBcast[MAX_OUTSTANDING];
    /** Free slots, a stack: slots are freed in the order the program looks at them. */
    private final PendingBcast[] free = new PendingBcast[MAX_OUTSTANDING];
    /** Calls not yet done, in issue order: a ring from {@link #first}. */
    private final PendingBcast[] running = new PendingBcast[MAX_OUTSTANDING];

    private final int rank;
    private int freeCount;
    private int first;
    private int runningCount;

    RequestQueue(int rank) {
        this.rank = rank;
        for (int i = 0; i < MAX_OUTSTANDING; i++) {
            slots[i] = new PendingBcast(i);
        }
        for (int i = 0; i < MAX_OUTSTANDING; i++) {
            // Slot 0 on top: the first calls take the first slots.
            free[i] = slots[MAX_OUTSTANDING - 1 - i];
        }
        freeCount = MAX_OUTSTANDING;
    }

    /** A free slot, queued last with the call's arguments. */
    PendingBcast add(Object buf, int count, org.hbcast.call.ElementType type, String unsupported, int root)
            throws MpiFailure {
        if (freeCount == 0) {
            throw MpiErrors.failed("hbcast iBcast on rank " + rank + ": " + MAX_OUTSTANDING
                    + " earlier iBcast requests of this instance are not yet seen complete; complete some"
                    + " with test() or waitFor() first (nothing was sent)");
        }
        PendingBcast p = free[--freeCount];
        free[freeCount] = null;
        p.queue(buf, count, type, unsupported, root);
        running[(first + runningCount) % MAX_OUTSTANDING] = p;
        runningCount++;
        return p;
    }

    /** The first call not yet done, or null. */
    PendingBcast first() {
        return runningCount == 0 ? null : running[first];
    }

    /** Takes the first call off the queue once it is done. */
    void removeFirst() {
        running[first] = null;
        first = (first + 1) % MAX_OUTSTANDING;
        runningCount--;
    }

    /** Whether no call is waiting or running. */
    boolean isEmpty() {
        return runningCount == 0;
    }

    /** Ends every call not yet done with {@code why} (the instance stopped). */
    void failAll(MpiFailure why) {
        while (runningCount > 0) {
            first().done(why);
            removeFirst();
        }
    }

    /** Gives a done call's slot back, once the program has seen it complete; idempotent. */
    void release(PendingBcast p) {
        if (slots[p.index()] == p && p.free()) {
            free[freeCount++] = p;
        }
    }
}
