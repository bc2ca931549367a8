package org.hbcast.stage;

import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * The waiting half of a progress loop: backs off while a round moved nothing (so a rank that waits
 * does not starve the peer it waits for on an oversubscribed node) and reports when nothing has moved
 * for the timeout, so no call waits forever. The one idle policy of the library: every wait loop of a
 * call uses it. One per loop owner; allocation-free.
 */
public final class ProgressWait {
    private final IdleStrategy idle;
    private final long timeoutNs;
    private long stalledSince;

    public ProgressWait(IdleStrategy idle, long timeoutNs) {
        this.idle = idle;
        this.timeoutNs = timeoutNs;
    }

    /**
     * The wait of every loop of a call: 100 spins, 20 yields, then parks from 1 to 100 µs, so a rank
     * that waits soon gives its core to the peer it waits for on an oversubscribed node.
     */
    public static ProgressWait backingOff(long timeoutNs) {
        return spinYieldPark(20, timeoutNs);
    }

    /**
     * The wait for a call's header from the network: 100 spins, then yields for a millisecond or two
     * before it parks. The header is one small message, usually there within microseconds; a park
     * costs 60 µs or more here (the kernel's timer slack), more than the whole broadcast, while a
     * yield still gives the core to the peer this rank waits for.
     */
    public static ProgressWait yieldingLonger(long timeoutNs) {
        return spinYieldPark(2000, timeoutNs);
    }

    private static ProgressWait spinYieldPark(int yields, long timeoutNs) {
        return new ProgressWait(
                new BackoffIdleStrategy(
                        100, yields, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100)),
                timeoutNs);
    }

    public long timeoutNs() {
        return timeoutNs;
    }

    /** Call before a loop starts. */
    public void reset() {
        idle.reset();
        stalledSince = 0;
    }

    /**
     * Call after each round that did {@code work} units of work; waits a little if it did none.
     *
     * @return true when nothing has moved for longer than the timeout: the caller must give up
     */
    public boolean timedOut(int work) {
        if (work > 0) {
            stalledSince = 0;
            idle.idle(work);
            return false;
        }
        long now = System.nanoTime();
        if (stalledSince == 0) {
            stalledSince = now;
        } else if (now - stalledSince > timeoutNs) {
            return true;
        }
        idle.idle();
        return false;
    }
}
