package org.hbcast.engine;

/**
 * What one rank of a node sees of the node's fan-out: a set of slots that one writer per call fills
 * and every other rank of the node reads, each at its own pace (the transport: a shared-memory
 * segment, or device memory). Chunks are numbered by sequences that run on over the life of the
 * link, not per call, so the writer may change from call to call without a reset.
 *
 * <p>Flow control as in the ring, one writer and many readers: {@code posted} (the tail, written by
 * the call's writer) and one {@code consumed} counter per rank (its head, written by that rank). The
 * writer may post chunk {@code q} once every reader has consumed {@code q - slotCount}.
 *
 * @param <M> the kind of memory chunks are copied from and to; the pipeline never looks inside it
 */
public interface FanoutLink<M> {
    /** Node rank of this end. */
    int position();

    /** Node ranks sharing the fan-out. */
    int participants();

    /** Slots: how many chunks may be posted ahead of the slowest reader. */
    int slotCount();

    /** Largest chunk one slot holds. */
    int maxChunkBytes();

    /** Chunks posted so far (read with acquire semantics). */
    long posted();

    /** Chunks node rank {@code rank} has consumed so far (read with acquire semantics). */
    long consumed(int rank);

    /**
     * Copies {@code length} bytes at {@code offset} of {@code source} into the slot of chunk
     * {@code sequence} and posts it: once the copy is visible, {@link #posted()} reaches
     * {@code sequence + 1}. Only when every reader has consumed {@code sequence - slotCount}.
     */
    void post(long sequence, M source, long offset, int length);

    /**
     * Copies the slot of chunk {@code sequence} (posted) to {@code offset} of {@code dest} and marks
     * it consumed by this rank, once the copy is done reading the slot.
     */
    void take(long sequence, M dest, long offset, int length);

    /** Marks every chunk below {@code sequence} consumed by this rank: the writer, for its own chunks. */
    void consumeTo(long sequence);

    /**
     * Completes copies started earlier, for links whose copies complete asynchronously (device
     * memory), and publishes them. Returns how many completed.
     */
    default int poll() {
        return 0;
    }

    /** True when no copy started on this link is still outstanding. */
    default boolean isSettled() {
        return true;
    }

    /** The node rank whose failure aborted the fan-out, or {@link RingLink#NOT_ABORTED}. Sticky. */
    int abortOrigin();

    /** Marks the fan-out aborted on behalf of {@code originRank}; the first origin recorded wins. */
    void abort(int originRank);
}
