package org.hbcast.select;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.hbcast.call.TimedCollectives;
import org.hbcast.header.HeaderRelay;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.settings.Setting;
import org.hbcast.stage.Awaited;
import org.hbcast.stage.ProgressWait;
import org.hbcast.tuning.LearntPlans;

/**
 * {@code auto}'s in-run selection over a run's calls: which plan each call of a size class runs
 * while the class is tried ({@link TrialSchedule}), the timing of each call, the agreement on each
 * block of trial calls' time, and what the run learnt, kept for the
 * next run on this fingerprint. All ranks see the same calls, so they take the same plans without
 * talking. Allocation-free per call, except on a verdict logged with {@code HBCAST_TRIALS_LOG=1}.
 *
 * <p>Host and device calls are tried alike, each memory kind in a schedule of its own: a device
 * call's options (the model's device plan, staging through the host, the other device plans) are
 * not a host call's, and one kind's verdicts never decide the other's. The device schedule is made
 * at the first device call, as the selector's device plans are.
 */
public final class InRunSelection {
    private static final String LOG = Setting.TRIALS_LOG.value();
    private static final boolean LOG_TRIALS = "1".equals(LOG) || "2".equals(LOG);
    /** {@code HBCAST_TRIALS_LOG=2}: rank 0 also prints every block's agreed time, what the verdicts rest on. */
    private static final boolean LOG_BLOCKS = "2".equals(LOG);

    private final Selector selector;
    /** The host calls' schedule. */
    private final TrialSchedule trials;
    /** The device calls' schedule, made at the first device call; null before. */
    private TrialSchedule deviceTrials;

    private boolean paused;
    private final TimedCollectives trialSync;
    /** A block's agreed time, and whether any rank is past the trials' deadline ({@link #stopTrialsAt}). */
    private final long[] blockTime = new long[2];
    /** When trials under way give up ({@link System#nanoTime}), where {@link #deadlineSet}. */
    private long deadlineNs;

    private boolean deadlineSet;
    /** Whether the agreement after a block gave up a class's trials at the deadline. */
    private boolean stopped;
    /** Per option, its screening: only for {@code HBCAST_TRIALS_LOG}. */
    private final long[] screenTimes = new long[TrialSchedule.MAX_OPTIONS];
    /** Per option, its fastest block: only for {@code HBCAST_TRIALS_LOG}. */
    private final long[] trialTimes = new long[TrialSchedule.MAX_OPTIONS];

    private final int rank;
    private final long timeoutNs;
    /** What the agreement after a block of trials waits for, for a report of a long wait. */
    private static final Awaited TRIAL_AGREEMENT = () -> "every rank to agree on the time of a block of trial"
            + " calls: some rank has not finished the block's last call yet, or has died";

    /**
     * @param inlineAllowed whether call headers may carry messages (they exist and the algorithm is
     *        {@code auto})
     */
    public InRunSelection(MpiComm comm, Selector selector, boolean inlineAllowed, ProgressWait wait) throws MpiFailure {
        this.selector = selector;
        this.trials = trialSchedule(selector, inlineAllowed);
        this.trialSync = new TimedCollectives(comm, blockTime.length, wait);
        this.rank = comm.rank();
        this.timeoutNs = wait.timeoutNs();
    }

    /**
     * What {@code auto} tries in the run: per size class the selector's candidate plans, and the
     * header itself where it may carry the message. Across a network, classes whose messages fit in
     * the header's first network message ({@link HeaderRelay#FIRST_PAYLOAD}) ride in it untried: one
     * message per edge is as little as a broadcast sends. On one host (a single node, or virtual
     * nodes) every class the header can carry rides in it untried: there it is one copy into the
     * host's call board and one copy out of it for each other rank, the least a broadcast through
     * shared memory copies, with no pipeline to drive (one node x 4 and virtual 2+2 at 64-256 KiB:
     * 1.2 to 12 times Open MPI's speed, at least the fan-out's, where trying the plans filled a
     * program's first blocks). So does every class it can carry between two nodes whose ranks
     * outnumber their cores across a fast network ({@link Selector#headerCarriesAllUntried}). Where
     * an earlier run decided a class, its choice takes the model's place as the incumbent (the
     * trials still run, and must beat it by the margin).
     */
    static TrialSchedule trialSchedule(Selector selector, boolean inlineAllowed) {
        boolean oneHost = !selector.shape().crossesNetwork();
        long capacity = selector.headerBytes();
        long untriedInline = untriedInlineBytes(oneHost, selector.headerCarriesAllUntried(), capacity);
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        boolean[] inline = new boolean[TrialSchedule.CLASSES];
        int[] incumbent = new int[TrialSchedule.CLASSES];
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            long largest = 1L << c;
            boolean fits = inlineAllowed && largest <= capacity;
            plans[c] = fits && largest <= untriedInline ? new Plan[0] : selector.trialPlans(c);
            inline[c] = fits && plans[c].length > 0;
            // A class that tries starts from the selector's plan for its largest size (a power of
            // two, the size programs use most), never from the header: past what the header carries
            // untried it goes unpipelined down the leaders' tree, and the margin must not shield it
            // where a pipelined plan is faster (at 64 KiB on the shaped 4+2+2 bed the chain was 9%
            // faster in the trials and 40% in a program's calls back to back).
            Plan chosen = selector.plan(1L << c);
            for (int p = 0; p < plans[c].length; p++) {
                if (Explanation.name(plans[c][p]).equals(Explanation.name(chosen))) {
                    incumbent[c] = p + (inline[c] ? 1 : 0);
                }
            }
        }
        TrialSchedule schedule = new TrialSchedule(
                plans,
                inline,
                incumbent,
                oneHost ? TrialSchedule.Screening.NONE : TrialSchedule.Screening.ONE_CALL,
                untriedInline);
        adoptLearnt(schedule, selector.inputs().learnt(), MemoryKind.HOST);
        return schedule;
    }

    /**
     * What {@code auto} tries in the run for device calls: per size class the selector's device trial
     * plans ({@link Selector#deviceTrialPlans}), the model's device plan the incumbent; no header
     * option (device messages do not ride in the call header). Screened as host calls on the same
     * layout. Verdicts an earlier run kept for device calls take the model's place.
     */
    static TrialSchedule deviceTrialSchedule(Selector selector) {
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        int[] incumbent = new int[TrialSchedule.CLASSES];
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            plans[c] = selector.deviceTrialPlans(c);
            String chosen = Explanation.name(selector.plan(1L << c, MemoryKind.DEVICE));
            for (int p = 0; p < plans[c].length; p++) {
                if (Explanation.name(plans[c][p]).equals(chosen)) {
                    incumbent[c] = p;
                }
            }
        }
        TrialSchedule schedule = new TrialSchedule(
                plans,
                new boolean[TrialSchedule.CLASSES],
                incumbent,
                selector.shape().crossesNetwork() ? TrialSchedule.Screening.ONE_CALL : TrialSchedule.Screening.NONE,
                0);
        adoptLearnt(schedule, selector.inputs().learnt(), MemoryKind.DEVICE);
        return schedule;
    }

    /** Makes what an earlier run kept for {@code memory} calls the incumbents of {@code schedule}. */
    private static void adoptLearnt(TrialSchedule schedule, LearntPlans learnt, MemoryKind memory) {
        if (learnt == null) {
            return;
        }
        for (LearntPlans.Verdict v : learnt.verdicts()) {
            if (v.memory() != memory) {
                continue;
            }
            for (int o = 0; o < schedule.options(v.sizeClass()); o++) {
                if (schedule.label(v.sizeClass(), o).equals(v.choice())) {
                    schedule.adopt(v.sizeClass(), o);
                }
            }
        }
    }

    /** The device calls' schedule, made at its first use (every rank at the same call: device calls are collective). */
    private TrialSchedule deviceTrials() {
        if (deviceTrials == null) {
            TrialSchedule made = deviceTrialSchedule(selector);
            made.pause(paused);
            deviceTrials = made;
        }
        return deviceTrials;
    }

    private TrialSchedule trials(MemoryKind memory) {
        return memory == MemoryKind.DEVICE ? deviceTrials() : trials;
    }

    /**
     * The most bytes that ride in the header untried under {@code auto}: all it carries ({@code
     * capacity}, {@link Selector#headerBytes}) on one host and where {@code all} says so ({@link
     * Selector#headerCarriesAllUntried}), else its first network message ({@link
     * TrialSchedule#UNTRIED_INLINE_BYTES}).
     */
    static long untriedInlineBytes(boolean oneHost, boolean all, long capacity) {
        return oneHost || all ? capacity : TrialSchedule.UNTRIED_INLINE_BYTES;
    }

    /** The plan of a call of {@code bytes} (the root's): the one being tried or kept for its size, else the selector's. */
    public Plan plan(long bytes) {
        return trials.plan(TrialSchedule.sizeClass(bytes), selector.plan(bytes));
    }

    /** The plan of a call of {@code bytes} (the root's) in {@code memory}: see {@link #plan(long)}. */
    public Plan plan(long bytes, MemoryKind memory) {
        return trials(memory).plan(TrialSchedule.sizeClass(bytes), selector.plan(bytes, memory));
    }

    /**
     * The plan of a host call of {@code bytes} that takes no part in the trials (a non-blocking one):
     * the plan kept for its size, else the selector's; never an option on trial.
     */
    public Plan keptPlan(long bytes) {
        return trials.keptPlan(TrialSchedule.sizeClass(bytes), selector.plan(bytes));
    }

    /** {@link #inlines} for a call that takes no part in the trials (see {@link #keptPlan}). */
    public boolean keptInlines(long bytes) {
        return trials.keptInlines(bytes);
    }

    /** Whether host calls of {@code bytes} choose among options by trials (the same on every rank). */
    public boolean tries(long bytes) {
        return trials.tries(TrialSchedule.sizeClass(bytes));
    }

    /**
     * Starts the trials of host calls of {@code bytes}'s class at its next call (see {@link
     * TrialSchedule#startNow}); collective in effect: every rank must call it before the same call.
     */
    public void startTrials(long bytes) {
        trials.startNow(TrialSchedule.sizeClass(bytes));
    }

    /**
     * From now on, the agreement after each block of host trials also agrees whether any rank's clock
     * has passed {@code atNs} ({@link System#nanoTime}); where one has, the class gives its trials up
     * on every rank ({@link TrialSchedule#abandon}) and {@link #stoppedAtDeadline} says so. For
     * create's trials, whose budget a size's last blocks overran by up to 0.5 s on the 2-host bed.
     * Collective in effect: every rank sets it before the same call.
     */
    public void stopTrialsAt(long atNs) {
        deadlineNs = atNs;
        deadlineSet = true;
        stopped = false;
    }

    /** Ends {@link #stopTrialsAt}: the run's own trials have no deadline. */
    public void noTrialDeadline() {
        deadlineSet = false;
        stopped = false;
    }

    /** Whether a class's trials were given up at the deadline since {@link #stopTrialsAt} (the same on every rank). */
    public boolean stoppedAtDeadline() {
        return stopped;
    }

    /** Whether host calls of {@code bytes} are in their trials now: no verdict yet (the same on every rank). */
    public boolean trying(long bytes) {
        return trials.exploring(TrialSchedule.sizeClass(bytes));
    }

    /**
     * Whether the header carries a message of {@code bytes} (the root's wish; the header tells the
     * others; see {@link TrialSchedule#inlines}).
     */
    public boolean inlines(long bytes) {
        return trials.inlines(bytes);
    }

    /**
     * Runs the agreement that ends each block of trials once, untimed (collective): its first use
     * loads and compiles the bindings' non-blocking collectives, milliseconds that would otherwise
     * fall on the first option the trials time.
     */
    public void warmUpAgreement() throws MpiFailure {
        blockTime[0] = 0;
        if (!trialSync.reduce(blockTime, 1, TRIAL_AGREEMENT) || !trialSync.releaseLast(0, TRIAL_AGREEMENT)) {
            throw MpiErrors.failed("hbcast create on rank " + rank + " timed out after " + timeoutNs / 1e9
                    + " s in the trials' warm-up: some rank did not join");
        }
    }

    /** The start of a call {@link #startOf} did not time. */
    public static final long UNTIMED = Long.MIN_VALUE;

    /**
     * When a call of {@code bytes} (this rank's count) starts, for {@link #learn}: the clock where its
     * class is in its trials, else {@link #UNTIMED}. A read of the clock costs 20-30 ns here; two a
     * call on every rank were half of a small call on one node x 4 (0.17-0.33 µs a broadcast, where
     * Open MPI's k-nomial takes 0.12-0.16), and outside its trials a call's time serves nothing.
     */
    public long startOf(long bytes) {
        return trials.timed(TrialSchedule.sizeClass(bytes)) ? System.nanoTime() : UNTIMED;
    }

    /** {@link #startOf(long)} for a call in {@code memory}. */
    public long startOf(long bytes, MemoryKind memory) {
        return trials(memory).timed(TrialSchedule.sizeClass(bytes)) ? System.nanoTime() : UNTIMED;
    }

    /** Stops (true) or resumes timing calls of either memory kind: a cold JIT's times would mislead the trials. */
    public void pause(boolean paused) {
        this.paused = paused;
        trials.pause(paused);
        if (deviceTrials != null) {
            deviceTrials.pause(paused);
        }
    }

    /**
     * Notes this rank's time of a finished call of {@code root} for the trials; after each block of
     * trial calls every rank (all reach it at the same call) agrees on the block's time, the slowest
     * rank's, and {@code root} leaves last, so the next block starts on the receivers first (see
     * {@link TrialSchedule}); after a size's last block each rank keeps the same fastest option.
     * {@code startNs} is what {@link #startOf} gave at the call's start.
     */
    public void learn(long bytes, int root, long startNs) throws MpiFailure {
        learn(trials, MemoryKind.HOST, bytes, root, startNs);
    }

    /**
     * {@link #learn(long, int, long)} for a call in {@code memory}: the same blocks, agreement and
     * verdicts, in that memory kind's own schedule. A device call's time is the whole call's: it
     * returns only once its copies on the GPU have completed.
     */
    public void learn(long bytes, MemoryKind memory, int root, long startNs) throws MpiFailure {
        learn(trials(memory), memory, bytes, root, startNs);
    }

    private void learn(TrialSchedule trials, MemoryKind memory, long bytes, int root, long startNs) throws MpiFailure {
        int c = TrialSchedule.sizeClass(bytes);
        // A receiver that passed another count than the root's started untimed if its own class was
        // not in trials: it adds nothing to the block, whose time is the slowest rank's.
        long nanos = startNs != UNTIMED && trials.timed(c) ? System.nanoTime() - startNs : 0;
        if (trials.record(c, nanos) == TrialSchedule.GO_ON) {
            return;
        }
        blockTime[0] = trials.blockNanos(c);
        blockTime[1] = deadlineSet && System.nanoTime() - deadlineNs > 0 ? 1 : 0;
        if (!trialSync.reduce(blockTime, blockTime.length, TRIAL_AGREEMENT)
                || !trialSync.releaseLast(root, TRIAL_AGREEMENT)) {
            throw MpiErrors.failed("hbcast bcast on rank " + rank + " timed out after " + timeoutNs / 1e9
                    + " s agreeing on the time of trial calls for " + memory + " messages of " + bytes
                    + " bytes: some rank did not join");
        }
        if (blockTime[1] != 0) {
            trials.abandon(c);
            stopped = true;
            return;
        }
        if (LOG_BLOCKS && rank == 0 && !trials.leadingIn(c)) {
            logBlock(trials, memory, c, bytes);
        }
        if (trials.endBlock(c, blockTime[0]) && LOG_TRIALS && rank == 0) {
            logVerdict(trials, memory, c);
        }
    }

    /**
     * With a builder, not {@code +}: the JVM's first string concatenation spins classes for
     * milliseconds (StringConcatFactory), and on a 2-host bed the next option's screening, which
     * waits for rank 0, took 7-18 ms instead of 0.4-0.7 in the log that was to show the trials.
     */
    private void logBlock(TrialSchedule trials, MemoryKind memory, int c, long bytes) {
        System.err.println(new StringBuilder("hbcast: trial block, ")
                .append(memory)
                .append(" messages of ")
                .append(bytes)
                .append(" B: ")
                .append(trials.label(c, trials.option(c)))
                .append(' ')
                .append(blockTime[0] / 1000.0)
                .append(" us for ")
                .append(trials.callsInBlock(c))
                .append(" calls"));
    }

    /** {@code HBCAST_TRIALS_LOG=1}: rank 0 prints each verdict of the trials (rare: once per size, then re-checks). */
    private void logVerdict(TrialSchedule trials, MemoryKind memory, int c) {
        StringBuilder sb = new StringBuilder("hbcast: trials for ")
                .append(memory)
                .append(" messages of ")
                .append(TrialSchedule.smallest(c))
                .append("..")
                .append(1L << c)
                .append(" B kept ")
                .append(trials.label(c, trials.winner(c)))
                .append(" (per option, us: its screening of ")
                .append(trials.screeningCalls(c))
                .append(" calls / its fastest block of ")
                .append(trials.blockCalls(c))
                .append(" calls, - where screened out; the slowest rank's time in its calls):");
        trials.summarize(c, screenTimes, trialTimes);
        for (int o = 0; o < trials.options(c); o++) {
            sb.append(' ')
                    .append(trials.label(c, o))
                    .append(' ')
                    .append(screenTimes[o] / 1000.0)
                    .append('/')
                    .append(trialTimes[o] == Long.MAX_VALUE ? "-" : String.valueOf(trialTimes[o] / 1000.0));
        }
        System.err.println(sb.append(')'));
    }

    /**
     * What {@code auto}'s in-run selection keeps for host calls of {@code bytes}: {@code inline} or a
     * plan's label; null while it still tries, {@code -} where the size is not tried. For explanations.
     */
    public String verdict(long bytes) {
        return verdict(trials, bytes);
    }

    /** {@link #verdict(long)} for calls in {@code memory} (the device schedule made here if no device call made it). */
    public String verdict(long bytes, MemoryKind memory) {
        return verdict(trials(memory), bytes);
    }

    private static String verdict(TrialSchedule trials, long bytes) {
        int c = TrialSchedule.sizeClass(bytes);
        if (!trials.tries(c)) {
            return "-";
        }
        int o = trials.winner(c);
        return o < 0 ? null : trials.label(c, o);
    }

    /**
     * Rank 0 writes what this run's trials decided (with what earlier runs decided and this one did
     * not revisit) for the next run on this fingerprint. A cache that cannot be written costs only
     * the next run's trials: a warning, no failure.
     */
    public void keepLearnt() {
        Path file = selector.inputs().learntFile();
        LearntPlans learnt = learnt();
        if (learnt == null) {
            return;
        }
        try {
            learnt.write(file);
            UnwrittenLearnt.written(file);
        } catch (IOException | RuntimeException e) {
            System.err.println("hbcast: warning: cannot keep what this run learnt in " + file + " (" + e
                    + "); the next run tries the plans again");
        }
    }

    /**
     * Rank 0 keeps what the trials decided so far in this JVM, unwritten, where its later instances
     * on this fingerprint read it at their create ({@link UnwrittenLearnt}); this instance writes it
     * at close with what its run adds ({@link #keepLearnt}).
     */
    public void keepLearntInJvm() {
        LearntPlans learnt = learnt();
        if (learnt != null) {
            UnwrittenLearnt.keep(selector.inputs().learntFile(), learnt);
        }
    }

    /** What this run's trials decided, with what earlier runs decided and it did not revisit; null where nothing is new or nothing is kept. */
    private LearntPlans learnt() {
        Path file = selector.inputs().learntFile();
        if (file == null) {
            return null;
        }
        LearntPlans earlier = selector.inputs().learnt();
        List<LearntPlans.Verdict> verdicts = new ArrayList<>();
        boolean fresh = kept(trials, MemoryKind.HOST, earlier, verdicts);
        // Device verdicts last, so a record's host part reads as before; none fresh without device calls.
        fresh |= kept(deviceTrials, MemoryKind.DEVICE, earlier, verdicts);
        if (!fresh) {
            return null;
        }
        return new LearntPlans(
                LearntPlans.FORMAT_VERSION,
                selector.inputs().fingerprint().id(),
                Instant.now().toString(),
                verdicts);
    }

    /**
     * Adds to {@code verdicts} what {@code trials} (null: no such calls in this run) decided for
     * {@code memory} calls, and what {@code earlier} decided for the classes this run did not;
     * true where this run decided some class.
     */
    static boolean kept(
            TrialSchedule trials, MemoryKind memory, LearntPlans earlier, List<LearntPlans.Verdict> verdicts) {
        boolean fresh = false;
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            // What the trials last kept, also while a re-check runs as the instance closes.
            int o = trials == null ? -1 : trials.settled(c);
            long nanos = trials == null ? -1 : trials.agreedNanos(c);
            LearntPlans.Verdict before = earlier == null ? null : earlier.verdict(memory, c);
            if (o >= 0 && nanos >= 0) {
                fresh = true;
                verdicts.add(new LearntPlans.Verdict(c, memory, trials.label(c, o), nanos / 1e9));
            } else if (before != null) {
                // Not decided by this run: the earlier lesson stands.
                verdicts.add(before);
            }
        }
        return fresh;
    }
}
