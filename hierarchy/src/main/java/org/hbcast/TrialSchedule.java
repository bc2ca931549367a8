package org.hbcast;

import java.util.Arrays;

/**
 * In-run selection for {@code auto} (after STAR-MPI's self-tuned collectives): the first calls of
 * each size class try the class's options in turn (round robin, so that a drift in the machine's
 * load falls on all of them alike), each {@link #ROUNDS} times; the ranks then agree on the
 * slowest rank's median time of each option (one small all-reduce, see {@link #summarize} and
 * {@link #decide}) and keep the fastest. A decided class is tried again after
 * {@link #FIRST_RECHECK} of its calls, then after twice as many, and so on.
 *
 * <p>Pure and deterministic: every rank sees the same calls with the same root byte counts, so
 * every rank's schedule makes the same choices at the same calls without talking, and the
 * all-reduce falls on the same call everywhere. Allocation-free after construction.
 *
 * <p>A size class {@code c} holds the messages of {@code (2^(c-1), 2^c]} bytes (class 0: 0 and 1
 * byte), so that a class lies wholly inside or outside the header's payload. Option 0 of a class
 * is the header when it may carry the message ({@link #inlineOption}); the others are plans.
 */
final class TrialSchedule {
    static final int CLASSES = 64;
    /** Calls of each option before a verdict. */
    static final int ROUNDS = 4;
    /** Calls of a decided class before it is tried again; doubles after each re-check. */
    static final long FIRST_RECHECK = 4096;
    /** Most options of one class: the header and four plans. */
    static final int MAX_OPTIONS = 5;

    /** Per class: its plans (options 1.. when it has the header option, else 0..); empty when it does not try. */
    private final Plan[][] plans;
    private final boolean[] inline;
    private final int[] trial = new int[CLASSES];
    private final int[] winner = new int[CLASSES];
    /** The agreed time of the winner, in nanoseconds, or -1 when this run has not decided the class. */
    private final long[] agreedNanos = new long[CLASSES];
    private final long[] callsLeft = new long[CLASSES];
    private final long[] recheckEvery = new long[CLASSES];
    private final long[][] samples;
    private final long[] sorting = new long[ROUNDS];
    private boolean paused;

    /**
     * @param plans per class, the plans it may try ({@link #CLASSES} entries; an entry of fewer than
     *        two options in all does not try and runs {@code fallback})
     * @param inline per class, whether the header may carry its messages (an extra option 0)
     */
    TrialSchedule(Plan[][] plans, boolean[] inline) {
        if (plans.length != CLASSES || inline.length != CLASSES) {
            throw new IllegalArgumentException("a schedule covers " + CLASSES + " size classes");
        }
        this.plans = new Plan[CLASSES][];
        this.inline = inline.clone();
        this.samples = new long[CLASSES][];
        for (int c = 0; c < CLASSES; c++) {
            this.plans[c] = plans[c].clone();
            int n = options(c);
            if (n > MAX_OPTIONS) {
                throw new IllegalArgumentException("size class " + c + " has " + n + " options, at most " + MAX_OPTIONS);
            }
            samples[c] = new long[n * ROUNDS];
            winner[c] = n < 2 ? 0 : -1;
            agreedNanos[c] = -1;
        }
    }

    /** The class of a message of {@code bytes}: the smallest {@code c} with {@code bytes <= 2^c}. */
    static int sizeClass(long bytes) {
        return bytes <= 1 ? 0 : 64 - Long.numberOfLeadingZeros(bytes - 1);
    }

    /** How many options class {@code c} chooses among (0 or 1: it does not try). */
    int options(int c) {
        return plans[c].length + (inline[c] ? 1 : 0);
    }

    /** Whether class {@code c} tries its options at all. */
    boolean tries(int c) {
        return options(c) > 1;
    }

    /** The option the next call of class {@code c} runs. */
    int option(int c) {
        return winner[c] >= 0 ? winner[c] : trial[c] % options(c);
    }

    /** Whether the next call of {@code bytes} rides in its header (only asked where the header could carry it). */
    boolean inlines(long bytes) {
        int c = sizeClass(bytes);
        return !tries(c) || inline[c] && option(c) == 0;
    }

    /** The plan of the next call of class {@code c}: {@code fallback} where it does not try or rides in the header. */
    Plan plan(int c, Plan fallback) {
        if (!tries(c)) {
            return fallback;
        }
        int o = option(c) - (inline[c] ? 1 : 0);
        return o < 0 ? fallback : plans[c][o];
    }

    /** Whether option {@code o} of class {@code c} is the header. */
    boolean inlineOption(int c, int o) {
        return inline[c] && o == 0;
    }

    /** Plan of option {@code o} of class {@code c} (not the header option). */
    Plan optionPlan(int c, int o) {
        return plans[c][o - (inline[c] ? 1 : 0)];
    }

    /** Warm-up calls and other calls that must not count: while paused, {@link #record} does nothing. */
    void pause(boolean on) {
        paused = on;
    }

    /**
     * Notes that a call of class {@code c} took {@code nanos} on this rank.
     *
     * @return true when it was the class's last trial: every rank must now {@link #summarize},
     *         agree and {@link #decide}
     */
    boolean record(int c, long nanos) {
        if (paused || !tries(c)) {
            return false;
        }
        if (winner[c] >= 0) {
            if (--callsLeft[c] == 0) {
                winner[c] = -1;
                trial[c] = 0;
            }
            return false;
        }
        samples[c][trial[c]++] = nanos;
        return trial[c] == samples[c].length;
    }

    /** This rank's median time of each option of class {@code c} into {@code out[0..options)}. */
    void summarize(int c, long[] out) {
        int n = options(c);
        for (int o = 0; o < n; o++) {
            for (int r = 0; r < ROUNDS; r++) {
                sorting[r] = samples[c][r * n + o];
            }
            Arrays.sort(sorting);
            out[o] = (sorting[(ROUNDS - 1) / 2] + sorting[ROUNDS / 2]) / 2;
        }
    }

    /** Keeps the option of class {@code c} with the least agreed time ({@code agreed[o]}, the ranks' maximum). */
    void decide(int c, long[] agreed) {
        int n = options(c);
        int best = 0;
        for (int o = 1; o < n; o++) {
            if (agreed[o] < agreed[best]) {
                best = o;
            }
        }
        settle(c, best, agreed[best]);
    }

    /** Starts class {@code c} decided on option {@code o} (what an earlier run learnt), to be re-checked as usual. */
    void adopt(int c, int o) {
        if (tries(c) && o >= 0 && o < options(c)) {
            settle(c, o, -1);
        }
    }

    private void settle(int c, int o, long nanos) {
        winner[c] = o;
        trial[c] = 0;
        agreedNanos[c] = nanos;
        recheckEvery[c] = recheckEvery[c] == 0 ? FIRST_RECHECK : 2 * recheckEvery[c];
        callsLeft[c] = recheckEvery[c];
    }

    /** The decided option of class {@code c}, or -1 while it tries. */
    int winner(int c) {
        return tries(c) ? winner[c] : -1;
    }

    /** The agreed time of class {@code c}'s winner as this run measured it, in nanoseconds; -1 where none. */
    long agreedNanos(int c) {
        return agreedNanos[c];
    }
}
