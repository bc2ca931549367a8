package org.hbcast.stage;

/**
 * The one progress loop of a broadcast call, for host and device memory alike: advances the call's
 * stages in turn until all are done, feeding each fed stage what the stage before it has made
 * ready, and backs off while none moves ({@link ProgressWait}). A long wait is reported, naming the
 * stage this rank waits for ({@link Stage#describeWait}); where the wait's limit gives up, after the
 * period with no progress it aborts every stage and returns the one this rank was waiting for.
 *
 * <p>Per call: {@link #clear()}, {@link #add} the started stages in the order data flows through
 * them, {@link #run()}. Allocation-free; not thread-safe (one call at a time, like the broadcast).
 */
public final class StageLoop {
    /** Most stages of one call: staging, tree, staging, node transport. */
    public static final int MAX_STAGES = 4;

    private final Stage[] stages = new Stage[MAX_STAGES];
    private final boolean[] fed = new boolean[MAX_STAGES];
    /** When each stage was first seen done ({@link System#nanoTime}), where {@link #timeStages} asked for it. */
    private final long[] doneAtNs = new long[MAX_STAGES];

    private boolean timing;
    private final ProgressWait wait;
    /** Names the first stage not done, for a report of a long wait; made once. */
    private final Awaited awaited = () -> firstNotDone().describeWait();

    private int count;

    /** A loop that gives up after {@code timeoutNs} without progress ({@link WaitLimit#givingUp}). */
    public StageLoop(long timeoutNs) {
        this(ProgressWait.backingOff(timeoutNs));
    }

    public StageLoop(ProgressWait wait) {
        this.wait = wait;
    }

    /**
     * Whether {@link #run()} notes when each stage finishes ({@link #doneAtNs}): a breakdown of a
     * call's time, off by default (one clock read per stage and call when on).
     */
    public StageLoop timeStages(boolean on) {
        timing = on;
        return this;
    }

    /** Forgets the stages of the previous call. */
    public StageLoop clear() {
        for (int i = 0; i < count; i++) {
            stages[i] = null;
            doneAtNs[i] = 0;
        }
        count = 0;
        return this;
    }

    /**
     * Appends a started stage.
     *
     * @param fedByPrevious true when {@code stage} may pass on only what the stage added before it
     *        has made ready
     * @throws IllegalStateException when the stage cuts the message differently from the ones before
     *         it, or is fed with no stage before it (bugs of the caller: the call has not started)
     */
    public StageLoop add(Stage stage, boolean fedByPrevious) {
        if (count == MAX_STAGES) {
            throw new IllegalStateException("more than " + MAX_STAGES + " stages in one call");
        }
        if (fedByPrevious && count == 0) {
            throw new IllegalStateException("the first stage of a call has nothing to feed it: " + stage);
        }
        if (count > 0 && stages[0].chunkCount() != stage.chunkCount()) {
            throw new IllegalStateException("stages cut the call differently: " + stages[0] + " into "
                    + stages[0].chunkCount() + " chunks, " + stage + " into " + stage.chunkCount());
        }
        stages[count] = stage;
        fed[count] = fedByPrevious;
        count++;
        return this;
    }

    /**
     * Runs the call's stages to the end.
     *
     * @return null once every stage is done; on a timeout that the wait's limit gives up on, every
     *         stage aborted, the first stage not done (the others wait for it, directly or not)
     * @throws StageException or any other runtime exception of a stage, after aborting every stage
     */
    public Stage run() {
        wait.reset();
        try {
            while (true) {
                int work = 0;
                boolean done = true;
                for (int i = 0; i < count; i++) {
                    Stage s = stages[i];
                    if (fed[i]) {
                        s.feed(stages[i - 1].chunksReady());
                    }
                    work += s.progress();
                    boolean stageDone = s.isDone();
                    if (timing && stageDone && doneAtNs[i] == 0) {
                        doneAtNs[i] = System.nanoTime();
                    }
                    done &= stageDone;
                }
                if (done) {
                    return null;
                }
                if (wait.timedOut(work, awaited)) {
                    Stage stalled = firstNotDone();
                    abortAll();
                    return stalled;
                }
            }
        } catch (RuntimeException e) {
            abortAll();
            throw e;
        }
    }

    /** Stages added since {@link #clear()}. */
    public int count() {
        return count;
    }

    /** Stage {@code i} in the order added. */
    public Stage stage(int i) {
        return stages[i];
    }

    /**
     * When stage {@code i} was first seen done in the last {@link #run()} ({@link System#nanoTime}),
     * 0 where stages were not timed ({@link #timeStages}) or it did not finish.
     */
    public long doneAtNs(int i) {
        return doneAtNs[i];
    }

    private Stage firstNotDone() {
        for (int i = 0; i < count; i++) {
            if (!stages[i].isDone()) {
                return stages[i];
            }
        }
        return stages[count - 1];
    }

    private void abortAll() {
        // Downstream first: in-node peers learn of the failure before the tree's requests are cancelled.
        for (int i = count - 1; i >= 0; i--) {
            try {
                stages[i].abort();
            } catch (RuntimeException ignored) {
                // Failing already; the first failure is the one to report.
            }
        }
    }
}
