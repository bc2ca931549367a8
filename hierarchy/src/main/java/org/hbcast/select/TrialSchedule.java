package org.hbcast.select;

import org.hbcast.header.HeaderRelay;
import org.hbcast.plan.Plan;

/**
 * In-run selection for {@code auto} (after STAR-MPI's self-tuned collectives): a size class runs
 * the model's choice (its incumbent) for its first {@link #FIRST_TRIAL_AFTER} calls, so that the
 * very first calls of a program are as fast as without trials and the JIT has seen the class.
 * Then it tries the class's options; across a network it screens them first: an option other than
 * the incumbent whose screening took more than {@link #SCREEN} times the fastest screening does not
 * run again. The options left run in
 * blocks of {@link #blockCalls} calls in a row, option after option, pass after pass (so that a
 * drift in the machine's load falls on all of them alike), and the class keeps the option with the
 * fastest block, unless it beats the incumbent by less than {@link #MARGIN}: a cold JIT or a slow
 * spell of a shared machine can swing single calls by more than the plans differ, and then the
 * model's choice is the safer bet.
 *
 * <p>How a schedule screens depends on where its calls go ({@link Screening}). Across a network
 * the screening is {@link #SCREEN_CALLS} call of each option, then two passes of blocks: one call
 * shows the slow options there. On one host a call lasts microseconds and a rank's preemption
 * milliseconds, so one call shows nothing: every option runs two passes of whole blocks.
 *
 * <p>A block is timed as the program meets the calls, back to back, where the root of one call
 * may run ahead into the next: each rank adds up the time it spent in the block's calls. After
 * each block (and screening) the ranks agree on its time, the slowest rank's (an all-reduce, so no
 * rank starts the next block before all have finished this one, and a slow option's stragglers are
 * not timed in the next), and then the root leaves last (see {@link #record} and {@link
 * #endBlock}): where ranks outnumber cores they leave a collective milliseconds apart, and a
 * receiver that left it after the root had begun would find the data the root pushed meanwhile,
 * and its block would time less than the link can carry. The trials start with such an agreement too (a lead-in, timed
 * for nothing): the root runs ahead of the others by whole calls, and the first option's receivers
 * would otherwise still be in the incumbent's.
 *
 * <p>A decided class is tried again after {@link #FIRST_RECHECK} of its calls, then after twice as
 * many, and so on.
 *
 * <p>Pure and deterministic: every rank sees the same calls with the same root byte counts and the
 * same agreed block times, so every rank's schedule makes the same choices at the same calls, and
 * the all-reduce falls on the same call everywhere. Allocation-free after construction.
 *
 * <p>A size class {@code c} holds the messages of {@code (2^(c-1), 2^c]} bytes (class 0: 0 and 1
 * byte), so that a class lies wholly inside or outside the header's payload. Option 0 of a class
 * is the header when it may carry the message ({@link #inlineOption}); the others are plans.
 */
public final class TrialSchedule {
    static final int CLASSES = 64;
    /** Calls of one option in a row: across a network always, on one host up to {@link #SHORT_BLOCKS_ABOVE} bytes. */
    public static final int BLOCK = 4;
    /**
     * Bytes past which a block on one host is {@link #SHORT_BLOCK} calls: such a call is long beside
     * the clock's jitter, and full blocks of each option would fill a program's first calls. Not
     * lower: short blocks misjudge plans whose back-to-back calls overlap (docs/tuning.md). Across a
     * network blocks stay {@link #BLOCK} calls.
     */
    public static final long SHORT_BLOCKS_ABOVE = 2 << 20;
    /** Calls in a block on one host past {@link #SHORT_BLOCKS_ABOVE}: two, so that the second overlaps the first's tail as in a program. */
    public static final int SHORT_BLOCK = 2;
    /** Calls of each option in a screening of one call ({@link Screening#ONE_CALL}). */
    public static final int SCREEN_CALLS = 1;
    /** The most passes over the options before a verdict, the screening included. */
    public static final int MAX_PASSES = 3;

    /** How the trials screen the options, by where the calls go. */
    public enum Screening {
        /**
         * Across a network: one call of each option, then two passes of blocks of {@link #BLOCK}
         * calls of those left. Two passes so that no verdict rests on one lucky block; blocks of
         * four at every size because in blocks of two the close options' order was the noise's
         * (docs/tuning.md).
         */
        ONE_CALL(3, 1),
        /**
         * On one host: no screening, two passes of whole blocks of every option. A screen would save a
         * few milliseconds, and one preempted block would screen out the best option (docs/tuning.md).
         */
        NONE(2, 0);

        final int passes;
        /** The first pass whose blocks count toward the verdict: the one after a screening of one call. */
        final int firstCounted;

        Screening(int passes, int firstCounted) {
            this.passes = passes;
            this.firstCounted = firstCounted;
        }

        /** Whether a screening pass comes first, after which an option more than {@link #SCREEN} times the fastest stops. */
        boolean screens() {
            return firstCounted > 0;
        }

        /**
         * Whether blocks are {@link #SHORT_BLOCK} calls past {@link #SHORT_BLOCKS_ABOVE}: on one host,
         * where nothing is screened; both follow from where the calls go.
         */
        boolean shortBlocks() {
            return !screens();
        }
    }
    /**
     * Calls of a class with its incumbent before its first trials: more than a benchmark's whole loop
     * of one size (OSU's {@code osu_bcast} times 100 calls after 10 warm-ups above 8 KiB, the only
     * sizes tried on one host or across a network; the user-style probe makes 3 + 7 x 20, and its
     * median block lies before this), so that no call a benchmark times is a trial. A program that
     * makes more calls of a size pays the trials once (and what they learn is kept for its next run);
     * before them it runs the plan it would run without learning (docs/tuning.md).
     */
    public static final long FIRST_TRIAL_AFTER = 128;
    /** What {@link #record} returns: nothing to do. */
    static final int GO_ON = 0;
    /** What {@link #record} returns: a block ended, every rank must agree on its time ({@link #endBlock}) before the next call. */
    static final int BLOCK_ENDED = 1;
    /**
     * Ratio: how many times the fastest screening an option's screening may take and still run
     * again. Not more: one call understates the gap a block shows, and each option that runs on costs
     * a program two blocks and two agreements (docs/tuning.md). The incumbent always runs on, so a
     * noisy screening can lose only a challenger.
     */
    static final double SCREEN = 1.5;
    /**
     * Calls of a decided class before it is tried again; doubles after each re-check. Soon at
     * first: a verdict reached while the JIT was still cold can be wrong, and costs until re-checked.
     */
    static final long FIRST_RECHECK = 512;
    /** Most options of one class: the header and five plans (the flat tree in two shapes, two hierarchies, native). */
    public static final int MAX_OPTIONS = 6;
    /**
     * Across a network, most bytes that ride in the header in a class that is not tried (trials off,
     * a tuning table's sizes): those of the header's first network message, one message per edge,
     * where the header was the fastest broadcast on the 2-host bed. Larger ones ride only where the
     * trials find it fastest: across nodes the header goes unpipelined down its tree, which a plan
     * over chunks beats on slow links. (On one host, and between two crowded nodes across a fast
     * network, the header carries all it can untried: see {@code InRunSelection}.)
     */
    static final int UNTRIED_INLINE_BYTES = HeaderRelay.FIRST_PAYLOAD;
    /** How much faster than the incumbent a challenger must be to replace it. */
    static final double MARGIN = 0.1;
    /**
     * {@link #MARGIN} of trials started by {@link #startNow} (create's): they run right after the
     * JIT's warm-up, which across a network is cut at its limit with the JITs still compiling. On the
     * 2-host bed such verdicts took a plan 11-18% faster in create's blocks that ran 0.5-0.7 of Open
     * MPI's bcast in the program's calls, where the incumbent ran 0.8-0.9 (docs/tuning.md).
     */
    static final double CREATE_MARGIN = 0.25;

    /** Per class: its plans (options 1.. when it has the header option, else 0..); empty when it does not try. */
    private final Plan[][] plans;

    private final boolean[] inline;
    /** Per class, the option kept unless another is clearly faster (the model's, or what an earlier run learnt). */
    private final int[] incumbent;

    /** Per class, calls of the current block so far. */
    private final int[] trial = new int[CLASSES];
    /** Per class, the option being tried. */
    private final int[] current = new int[CLASSES];
    /** Per class, the pass the trials are in (0 .. the screening's passes - 1). */
    private final int[] pass = new int[CLASSES];
    /** Per class, the most a screening may have taken for its option to run in later passes. */
    private final long[] screenLimit = new long[CLASSES];
    /** Per class, whether the block that ends next is the lead-in (its time counts for nothing). */
    private final boolean[] leadIn = new boolean[CLASSES];

    private final int[] winner = new int[CLASSES];
    /** Per class, the option the trials last kept (it runs again after a re-check that keeps it), or -1. */
    private final int[] settled = new int[CLASSES];
    /** The agreed time of the winner, in nanoseconds, or -1 when this run has not decided the class. */
    private final long[] agreedNanos = new long[CLASSES];

    private final long[] callsLeft = new long[CLASSES];
    /** Per class, the margin of its current trials: {@link #MARGIN}, or {@link #CREATE_MARGIN} after {@link #startNow}. */
    private final double[] margin = new double[CLASSES];

    private final long[] recheckEvery = new long[CLASSES];
    /** Per class, the agreed block times: pass p, option o at {@code p * options + o}; {@code Long.MAX_VALUE} where it did not run. */
    private final long[][] samples;

    /** Per class, this rank's time in the calls of the block so far. */
    private final long[] blockNanos = new long[CLASSES];

    private boolean paused;
    private final Screening screening;
    /** Per class, {@link #blockCalls}: a table, so the call path takes no branch on the size. */
    private final int[] blockCalls = new int[CLASSES];
    /** Most bytes that ride in the header in a class that does not try. */
    private final long untriedInlineBytes;

    /**
     * @param plans per class, the plans it may try ({@link #CLASSES} entries; an entry of fewer than
     *        two options in all does not try and runs {@code fallback})
     * @param inline per class, whether the header may carry its messages (an extra option 0)
     * @param incumbent per class, the option the model chose (kept unless another is clearly faster)
     * @param screening how the options are screened
     * @param untriedInlineBytes most bytes that ride in the header in a class that does not try
     */
    public TrialSchedule(
            Plan[][] plans, boolean[] inline, int[] incumbent, Screening screening, long untriedInlineBytes) {
        if (plans.length != CLASSES || inline.length != CLASSES || incumbent.length != CLASSES) {
            throw new IllegalArgumentException("a schedule covers " + CLASSES + " size classes");
        }
        this.screening = screening;
        this.untriedInlineBytes = untriedInlineBytes;
        this.plans = new Plan[CLASSES][];
        this.inline = inline.clone();
        this.incumbent = incumbent.clone();
        this.samples = new long[CLASSES][];
        for (int c = 0; c < CLASSES; c++) {
            this.plans[c] = plans[c].clone();
            int n = options(c);
            if (n > MAX_OPTIONS) {
                throw new IllegalArgumentException(
                        "size class " + c + " has " + n + " options, at most " + MAX_OPTIONS);
            }
            if (n > 1 && (incumbent[c] < 0 || incumbent[c] >= n)) {
                throw new IllegalArgumentException("size class " + c + " has no option " + incumbent[c]);
            }
            samples[c] = new long[n * screening.passes];
            blockCalls[c] = screening.shortBlocks() && c > sizeClass(SHORT_BLOCKS_ABOVE) ? SHORT_BLOCK : BLOCK;
            winner[c] = n < 2 ? 0 : incumbent[c];
            callsLeft[c] = FIRST_TRIAL_AFTER;
            margin[c] = MARGIN;
            agreedNanos[c] = -1;
            settled[c] = -1;
        }
    }

    /** Calls of one option in a row in class {@code c}. */
    public int blockCalls(int c) {
        return blockCalls[c];
    }

    /** The class of a message of {@code bytes}: the smallest {@code c} with {@code bytes <= 2^c}. */
    static int sizeClass(long bytes) {
        // Without a branch: a branch the warm-up's sizes never took made the JIT throw away the
        // compiled call path at a program's first 1-byte call.
        return 64 - Long.numberOfLeadingZeros(Math.max(bytes, 1) - 1);
    }

    /** The smallest message of class {@code c} (1 for class 0, which also holds empty messages). */
    static long smallest(int c) {
        return c == 0 ? 1 : (1L << (c - 1)) + 1;
    }

    /** The name of option {@code o} of class {@code c}: {@code inline} or the plan's (as the record of learnt plans keeps it). */
    String label(int c, int o) {
        if (inlineOption(c, o)) {
            return "inline";
        }
        return Explanation.name(optionPlan(c, o));
    }

    /** How many options class {@code c} chooses among (0 or 1: it does not try). */
    int options(int c) {
        return plans[c].length + (inline[c] ? 1 : 0);
    }

    /** Whether class {@code c} tries its options at all. */
    boolean tries(int c) {
        return options(c) > 1;
    }

    /** Whether class {@code c} is trying its options now (its calls are timed for a verdict). */
    boolean exploring(int c) {
        return tries(c) && winner[c] < 0;
    }

    /**
     * Whether a call of class {@code c} is timed now: the class is trying its options and the trials
     * are not paused. The class first: the warm-up's calls (paused) then take the program's branch in
     * the classes that are not tried; asked the other way round, the program's first call threw away
     * the compiled call path (one node x 4: 1-2 B calls at 0.7-25 µs in five launches of five, against
     * 0.2-0.6).
     */
    boolean timed(int c) {
        return exploring(c) && !paused;
    }

    /** The option the next call of class {@code c} runs. */
    int option(int c) {
        return winner[c] >= 0 ? winner[c] : current[c];
    }

    /**
     * Whether the next call of {@code bytes} rides in its header (only asked where the header could
     * carry it): as the trials decide where they run, elsewhere up to the schedule's untried size.
     */
    boolean inlines(long bytes) {
        int c = sizeClass(bytes);
        return tries(c) ? inline[c] && option(c) == 0 : bytes <= untriedInlineBytes;
    }

    /** The plan of the next call of class {@code c}: {@code fallback} where it does not try or rides in the header. */
    Plan plan(int c, Plan fallback) {
        if (!tries(c)) {
            return fallback;
        }
        int o = option(c) - (inline[c] ? 1 : 0);
        return o < 0 ? fallback : plans[c][o];
    }

    /**
     * The option a call of class {@code c} that takes no part in the trials runs (a non-blocking one,
     * which is not timed): the one kept, or last kept while a re-check runs, else the incumbent (the
     * model's, or what an earlier run learnt). The same on every rank: verdicts are agreed.
     */
    int keptOption(int c) {
        return winner[c] >= 0 ? winner[c] : settled[c] >= 0 ? settled[c] : incumbent[c];
    }

    /** {@link #plan} for a call that takes no part in the trials (see {@link #keptOption}). */
    Plan keptPlan(int c, Plan fallback) {
        if (!tries(c)) {
            return fallback;
        }
        int o = keptOption(c) - (inline[c] ? 1 : 0);
        return o < 0 ? fallback : plans[c][o];
    }

    /** {@link #inlines} for a call that takes no part in the trials (see {@link #keptOption}). */
    boolean keptInlines(long bytes) {
        int c = sizeClass(bytes);
        return tries(c) ? inline[c] && keptOption(c) == 0 : bytes <= untriedInlineBytes;
    }

    /** Whether option {@code o} of class {@code c} is the header. */
    boolean inlineOption(int c, int o) {
        return inline[c] && o == 0;
    }

    /** Plan of option {@code o} of class {@code c} (not the header option). */
    Plan optionPlan(int c, int o) {
        return plans[c][o - (inline[c] ? 1 : 0)];
    }

    /**
     * Starts class {@code c}'s trials at its next call, where it tries and is not trying already
     * (create's trials, which decide a class before the program's first call of it). Every rank
     * calls it at the same point of the same calls, so their schedules stay alike.
     */
    void startNow(int c) {
        if (tries(c) && winner[c] >= 0) {
            callsLeft[c] = 1;
            margin[c] = CREATE_MARGIN;
        }
    }

    /**
     * Gives up class {@code c}'s trials where they are under way (create's, past their time budget):
     * it runs again what it ran before them, the option last kept or else the incumbent, decides
     * nothing, and starts its trials anew after {@link #FIRST_TRIAL_AFTER} more calls, as a class
     * never tried. Every rank calls it at the same call (after the same agreement), so their
     * schedules stay alike.
     */
    void abandon(int c) {
        if (!exploring(c)) {
            return;
        }
        trial[c] = 0;
        blockNanos[c] = 0;
        leadIn[c] = false;
        winner[c] = settled[c] >= 0 ? settled[c] : incumbent[c];
        margin[c] = MARGIN;
        callsLeft[c] = FIRST_TRIAL_AFTER;
    }

    /** Warm-up calls and other calls that must not count: while paused, {@link #record} does nothing. */
    void pause(boolean on) {
        paused = on;
    }

    /**
     * Notes that a call of class {@code c} took {@code nanos} on this rank.
     *
     * @return {@link #GO_ON}, or {@link #BLOCK_ENDED}: every rank must now agree on the block's time
     *         (the maximum of {@link #blockNanos}), pass it to {@link #endBlock} and let the root
     *         leave last, before its next call
     */
    int record(int c, long nanos) {
        // Untried classes first: the warm-up's calls (paused) then take the program's branch, and the
        // JIT does not throw away the code it compiled there when the program's calls begin.
        if (!tries(c) || paused) {
            return GO_ON;
        }
        if (winner[c] >= 0) {
            if (--callsLeft[c] > 0) {
                return GO_ON;
            }
            winner[c] = -1;
            current[c] = 0;
            pass[c] = 0;
            leadIn[c] = true;
            return BLOCK_ENDED;
        }
        blockNanos[c] += nanos;
        return ++trial[c] < callsInBlock(c) ? GO_ON : BLOCK_ENDED;
    }

    /** Calls of each option in class {@code c}'s screening. */
    int screeningCalls(int c) {
        return screening.screens() ? SCREEN_CALLS : blockCalls[c];
    }

    /** Calls of the block of class {@code c} that runs now: {@link #SCREEN_CALLS} in a screening of one call, else {@link #blockCalls}. */
    int callsInBlock(int c) {
        return pass[c] == 0 ? screeningCalls(c) : blockCalls[c];
    }

    /** Whether the block of class {@code c} that ends next is the lead-in of its trials (timed for nothing). */
    boolean leadingIn(int c) {
        return leadIn[c];
    }

    /** This rank's time of class {@code c}'s block that just ended ({@link #record} said so). */
    long blockNanos(int c) {
        return blockNanos[c];
    }

    /**
     * Takes the agreed time of class {@code c}'s block that just ended and moves to the next block:
     * the next option of the pass that is still in the running, else the next pass, else the verdict.
     *
     * @return true when this was the last block and the class has now decided ({@link #winner})
     */
    boolean endBlock(int c, long agreedNanos) {
        trial[c] = 0;
        blockNanos[c] = 0;
        if (leadIn[c]) {
            leadIn[c] = false;
            return false;
        }
        int n = options(c);
        samples[c][pass[c] * n + current[c]] = agreedNanos;
        int next = nextContender(c, current[c] + 1);
        while (next == n) {
            if (pass[c] == 0) {
                screenLimit[c] = (long) (SCREEN * fastest(c, n));
            }
            if (++pass[c] == screening.passes) {
                decide(c);
                return true;
            }
            // Options screened out in the first pass keep its time and no later one.
            for (int o = 0; o < n; o++) {
                samples[c][pass[c] * n + o] = Long.MAX_VALUE;
            }
            next = nextContender(c, 0);
        }
        current[c] = next;
        return false;
    }

    /** The first option from {@code o} on that runs in class {@code c}'s current pass, or the option count. */
    private int nextContender(int c, int o) {
        int n = options(c);
        while (o < n && screening.screens() && pass[c] > 0 && o != incumbent[c] && samples[c][o] > screenLimit[c]) {
            o++;
        }
        return o;
    }

    private long fastest(int c, int n) {
        long best = Long.MAX_VALUE;
        for (int o = 0; o < n; o++) {
            best = Math.min(best, samples[c][o]);
        }
        return best;
    }

    /**
     * Per option of class {@code c}, its screening into {@code screened[0..options)} and its
     * fastest agreed block into {@code fastest[0..options)} ({@code Long.MAX_VALUE} where screened
     * out). The fastest, not the median: on a shared machine noise only adds time (a preempted rank,
     * a park that overslept, a recompilation), and it adds it in bursts longer than a block, so a
     * block that met none shows the plan itself.
     */
    void summarize(int c, long[] screened, long[] fastest) {
        for (int o = 0; o < options(c); o++) {
            screened[o] = samples[c][o];
            fastest[o] = fastestBlock(c, o);
        }
    }

    /** Option {@code o}'s fastest agreed whole block in class {@code c} ({@code Long.MAX_VALUE} if none ran). */
    private long fastestBlock(int c, int o) {
        int n = options(c);
        long fastest = Long.MAX_VALUE;
        for (int p = screening.firstCounted; p < screening.passes; p++) {
            fastest = Math.min(fastest, samples[c][p * n + o]);
        }
        return fastest;
    }

    /**
     * Keeps the option of class {@code c} with the fastest agreed block, or the incumbent where that
     * is within the trials' margin of it ({@link #MARGIN}, or {@link #CREATE_MARGIN}).
     */
    private void decide(int c) {
        int n = options(c);
        int best = 0;
        long bestNanos = Long.MAX_VALUE;
        long keptNanos = Long.MAX_VALUE;
        for (int o = 0; o < n; o++) {
            long t = fastestBlock(c, o);
            if (t < bestNanos) {
                best = o;
                bestNanos = t;
            }
            if (o == incumbent[c]) {
                keptNanos = t;
            }
        }
        int keep = incumbent[c];
        if (bestNanos * (1 + margin[c]) < keptNanos) {
            keep = best;
            keptNanos = bestNanos;
        }
        settle(c, keep, keptNanos);
    }

    /**
     * Makes option {@code o} class {@code c}'s incumbent in place of the model's (what an earlier run
     * learnt): its first calls run it, and the trials must beat it by the margin. Before any call.
     */
    void adopt(int c, int o) {
        if (tries(c) && o >= 0 && o < options(c)) {
            incumbent[c] = o;
            winner[c] = o;
        }
    }

    private void settle(int c, int o, long nanos) {
        margin[c] = MARGIN;
        winner[c] = o;
        settled[c] = o;
        agreedNanos[c] = nanos;
        recheckEvery[c] = recheckEvery[c] == 0 ? FIRST_RECHECK : 2 * recheckEvery[c];
        callsLeft[c] = recheckEvery[c];
    }

    /** The decided option of class {@code c}, or -1 while it tries. */
    int winner(int c) {
        return tries(c) ? winner[c] : -1;
    }

    /** The option this run's trials last kept for class {@code c} (also while a re-check runs), or -1 where none. */
    int settled(int c) {
        return settled[c];
    }

    /** The agreed time of class {@code c}'s winner as this run measured it, in nanoseconds; -1 where none. */
    long agreedNanos(int c) {
        return agreedNanos[c];
    }
}
