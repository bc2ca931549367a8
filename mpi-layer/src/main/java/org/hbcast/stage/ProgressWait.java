package org.hbcast.stage;

import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.hbcast.settings.Setting;

/**
 * The waiting half of a progress loop: backs off while a round moved nothing (so a rank that waits
 * does not starve the peer it waits for on an oversubscribed node) and, once nothing has moved for the
 * period of its {@link WaitLimit}, reports the wait and goes on, or tells the caller to give up where
 * the limit says so. The one idle policy of the library: every wait loop of a call uses it. One per
 * loop owner; allocation-free until a report.
 */
public final class ProgressWait {
    /** Yields before a park where a waiter should give its core away soon. */
    static final int FEW_YIELDS = 20;
    /** Yields before a park where a park would cost more than the wait: a millisecond or two. */
    static final int MANY_YIELDS = 2000;

    /**
     * Idle rounds between two reads of the clock. A read costs 20-30 ns here, more than a round of
     * spinning, and a header waited for on one node arrives within a few rounds: read every round it
     * slowed each small call on every rank. 64 rounds are at most a few milliseconds once parked, nothing
     * against a timeout of seconds.
     */
    static final int ROUNDS_PER_CLOCK_READ = 64;

    private final IdleStrategy idle;
    private final WaitLimit limit;
    private long stalledSince;
    /** Reports of the current stall so far: the next is due one period after the last. */
    private long reports;

    private int idleRounds;

    public ProgressWait(IdleStrategy idle, WaitLimit limit) {
        this.idle = idle;
        this.limit = limit;
    }

    /** Gives up after {@code timeoutNs} without a report ({@link WaitLimit#givingUp}). */
    public ProgressWait(IdleStrategy idle, long timeoutNs) {
        this(idle, WaitLimit.givingUp(timeoutNs));
    }

    /**
     * 100 spins, 20 yields, then parks from 1 to 100 µs, so a rank that waits soon gives its core to
     * the peer it waits for on an oversubscribed node: every wait of a call where the ranks take
     * every core ({@link #forSharedCores}), and waits outside calls (a barrier at close).
     */
    public static ProgressWait backingOff(WaitLimit limit) {
        return spinYieldPark(FEW_YIELDS, limit);
    }

    /** {@link #backingOff(WaitLimit)} that gives up after {@code timeoutNs} ({@link WaitLimit#givingUp}). */
    public static ProgressWait backingOff(long timeoutNs) {
        return backingOff(WaitLimit.givingUp(timeoutNs));
    }

    /**
     * Every wait of a call (its progress loop, a member's wait on the board for a header, the
     * agreements) on a machine whose cores {@code ranksOnMachine} ranks share (itself included):
     * {@link #yieldsBeforePark} yields before it parks, or as many as {@code HBCAST_WAIT_YIELDS} (or
     * {@code -Dhbcast.wait.yields}) says, for experiments. A member waits on the board while its leader takes
     * the header from the network, a few µs on a fast one: a park there would cost more than Open
     * MPI's whole small broadcast.
     *
     * @throws IllegalArgumentException when that property is not a whole number from 0
     */
    public static ProgressWait forSharedCores(int ranksOnMachine, WaitLimit limit) {
        return spinYieldPark(yields(ranksOnMachine, Runtime.getRuntime().availableProcessors()), limit);
    }

    /** The system property that sets the yields of {@link #forSharedCores}. */
    public static final String YIELDS_PROPERTY = Setting.WAIT_YIELDS.property();

    static int yields(int ranksOnMachine, int cores) {
        String set = Setting.WAIT_YIELDS.value();
        if (set == null) {
            return yieldsBeforePark(ranksOnMachine, cores);
        }
        try {
            int yields = Integer.parseInt(set.trim());
            if (yields >= 0) {
                return yields;
            }
        } catch (NumberFormatException e) {
            // Reported below.
        }
        throw new IllegalArgumentException(
                Setting.WAIT_YIELDS.named() + "=" + set + ": expected a whole number of yields from 0");
    }

    /**
     * Where every rank has a core and one is left over, a waiting rank yields for a millisecond or two
     * before it parks: a park costs 60 µs or more (the kernel's timer slack), and while a rank sleeps
     * MPI moves nothing of its transfers, which progress only inside its calls. On one H100 machine
     * (16 cores, 4 ranks in virtual nodes 2+2) parking after 20 yields made device broadcasts of 2-8
     * MiB 3-6x slower, their leaders' messages crawling between parks (docs/results/gpu/h100-2026-11-26).
     * Where ranks take every core or more, a waiter must give its core to the peer it waits for
     * soon, or to the JVM's own threads and the launcher, so it parks after {@link #FEW_YIELDS}.
     * {@code cores} is what the JVM may use: a rank bound to one core sees one, and keeps the
     * latter.
     */
    static int yieldsBeforePark(int ranksOnMachine, int cores) {
        return ranksOnMachine < cores ? MANY_YIELDS : FEW_YIELDS;
    }

    /**
     * The wait for a call's header from the network: 100 spins, then yields for a millisecond or two
     * before it parks. The header is one small message, usually there within microseconds; a park
     * costs 60 µs or more here (the kernel's timer slack), more than the whole broadcast, while a
     * yield still gives the core to the peer this rank waits for.
     */
    public static ProgressWait yieldingLonger(WaitLimit limit) {
        return spinYieldPark(MANY_YIELDS, limit);
    }

    private static ProgressWait spinYieldPark(int yields, WaitLimit limit) {
        return new ProgressWait(
                new BackoffIdleStrategy(
                        100, yields, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(100)),
                limit);
    }

    /** The period after which a stalled wait is reported or given up. */
    public long timeoutNs() {
        return limit.periodNs();
    }

    /** What this wait does after its period; shared by the waits of one instance. */
    public WaitLimit limit() {
        return limit;
    }

    /** Call before a loop starts. */
    public void reset() {
        idle.reset();
        stalledSince = 0;
        reports = 0;
        idleRounds = 0;
    }

    /**
     * Call after each round that did {@code work} units of work; waits a little if it did none. Once
     * nothing has moved for the limit's period (and after each further period) it reports the wait,
     * naming {@code awaited}, unless the limit gives up.
     *
     * @param awaited what the caller waits for and from whom; asked only for a report
     * @return true when nothing has moved for longer than the period and the limit gives up: the
     *         caller must give up; never true under a limit that waits on
     */
    public boolean timedOut(int work, Awaited awaited) {
        if (work > 0) {
            stalledSince = 0;
            reports = 0;
            idleRounds = 0;
            idle.idle(work);
            return false;
        }
        if (++idleRounds == ROUNDS_PER_CLOCK_READ) {
            idleRounds = 0;
            // A wait on shared memory calls no MPI: without this, fragments of a large message this rank
            // sent (its send returned once they were queued) wait for its next MPI call, and the peer
            // that receives them, whose header this rank may be waiting for, waits for ever.
            limit.kick();
            long now = System.nanoTime();
            if (stalledSince == 0) {
                stalledSince = now;
            } else if (now - stalledSince > limit.periodNs() * (reports + 1)) {
                if (limit.givesUp()) {
                    return true;
                }
                reports++;
                limit.report(now - stalledSince, awaited);
            }
        }
        idle.idle();
        return false;
    }
}
