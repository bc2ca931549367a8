package org.hbcast.stage;

/**
 * One rank's part of one level of a broadcast call (the leaders' tree, the node's ring or fan-out, a
 * leader's staging copies between device and host memory), as {@link StageLoop} drives it: a
 * non-blocking state machine over the call's chunks ({@link Chunks}), started by its own
 * {@code start} method, then progressed until done. A stage that passes on what another stage
 * delivers (a node leader's ring, fed by the tree) is started as fed and told by {@link #feed}
 * how many leading chunks it may pass on.
 *
 * <p>Implementations allocate nothing in {@link #progress}, {@link #isDone}, {@link #chunksReady} or
 * {@link #feed}; only {@link #describeWait} builds text, and only on failure.
 */
public interface Stage {
    /**
     * Moves what can move without waiting.
     *
     * @return units of work done, 0 when waiting on a peer or on the stage that feeds this one
     * @throws StageException when the stage cannot go on (a peer aborted, a transport failed)
     */
    int progress();

    /** True once this rank's part of the current call is complete. */
    boolean isDone();

    /** Chunks of the current call: every stage of a call cuts the message alike. */
    int chunkCount();

    /** Leading chunks whole in this rank's memory, which a stage after this one may pass on. */
    int chunksReady();

    /**
     * Only on a stage started as fed: chunks {@code [0, chunks)} are in its memory and may be passed
     * on. The count only grows: a smaller count, or more than {@link #chunkCount()}, is a bug.
     *
     * @throws IllegalArgumentException when {@code chunks} shrinks or exceeds the call's chunks
     * @throws IllegalStateException when the stage was not started as fed
     */
    void feed(int chunks);

    /** What this rank waits for, naming chunk and peer, for a timeout message. Allocates. */
    String describeWait();

    /** Gives up the current call: cancels what is in flight and tells the peers, so they fail fast. */
    void abort();
}
