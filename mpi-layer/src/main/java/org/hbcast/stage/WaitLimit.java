package org.hbcast.stage;

import java.util.function.Consumer;

/**
 * What every wait of one broadcast instance does once nothing has moved for the period
 * ({@code HBCAST_TIMEOUT_S}): by default it prints one line naming the call, what it waits for and
 * from whom, and waits on, as Open MPI waits for a late root or peer (a further line after each
 * further period); only where failing was asked for ({@code HBCAST_TIMEOUT_FAILS=1}, a departure
 * from MPI's semantics) does it tell the waiter to give up. The one place that decides between the
 * two, so every loop ({@link ProgressWait}) behaves alike.
 *
 * <p>The owner sets the number of the call in progress ({@link #call}); one call at a time, like the
 * instance. Builds text only for a report.
 */
public final class WaitLimit {
    private final long periodNs;
    private final boolean givesUp;
    private final String who;
    private final Consumer<String> sink;
    private long call;
    /** What drives MPI's progress during a wait that makes no MPI call of its own (none by default). */
    private Runnable progress = () -> {};

    private WaitLimit(long periodNs, boolean givesUp, String who, Consumer<String> sink) {
        if (periodNs < 0) {
            throw new IllegalArgumentException("negative wait period " + periodNs + " ns");
        }
        this.periodNs = periodNs;
        this.givesUp = givesUp;
        this.who = who;
        this.sink = sink;
    }

    /**
     * The limit of an instance's calls on {@code rank}: reports to stderr and waits on, or, with
     * {@code givesUp}, gives up after {@code periodNs}.
     */
    public static WaitLimit ofCalls(long periodNs, boolean givesUp, int rank) {
        return new WaitLimit(periodNs, givesUp, "hbcast bcast on rank " + rank, System.err::println);
    }

    /** Reports to {@code sink} instead of stderr, for tests. */
    public static WaitLimit reportingTo(long periodNs, String who, Consumer<String> sink) {
        return new WaitLimit(periodNs, false, who, sink);
    }

    /**
     * Gives up after {@code periodNs} without a report: for waits that must stay bounded whatever the
     * options say (tearing down after peers may be gone) and for tests of one loop.
     */
    public static WaitLimit givingUp(long periodNs) {
        return new WaitLimit(periodNs, true, "hbcast", line -> {});
    }

    /** How long nothing may move before a report, or before giving up. */
    public long periodNs() {
        return periodNs;
    }

    /** True when a wait gives up after the period; false when it reports and waits on. */
    public boolean givesUp() {
        return givesUp;
    }

    /**
     * Drives MPI's progress with {@code kick} while a wait of this instance makes no MPI call of its
     * own (a wait on shared memory): Open MPI moves a message's later fragments only inside MPI calls,
     * and a send that returned may still have fragments queued in this process. Kicked every few
     * idle rounds (see {@link ProgressWait}).
     */
    public WaitLimit drivingProgress(Runnable kick) {
        this.progress = kick;
        return this;
    }

    /** Lets MPI move what this process still has queued. */
    void kick() {
        progress.run();
    }

    /** Numbers the call now waiting, for reports: 0 for waits outside a program's calls (set-up). */
    public void call(long number) {
        call = number;
    }

    /** Prints the report of a wait that has gone {@code waitedNs} without progress. */
    void report(long waitedNs, Awaited awaited) {
        sink.accept(who + ": " + callName() + " still waiting after " + Math.round(waitedNs / 1e8) / 10.0 + " s for "
                + awaited.awaited()
                + "; waiting on, as Open MPI would (HBCAST_TIMEOUT_FAILS=1 fails the call instead)");
    }

    /** Why a wait for {@code awaited} gave up, in the words of a report: failure path only. */
    public String timedOut(Awaited awaited) {
        return who + ": " + callName() + " timed out after " + periodNs / 1e9 + " s waiting for " + awaited.awaited();
    }

    private String callName() {
        return call == 0 ? "setting up" : "call " + call;
    }
}
