package org.hbcast.engine;

/**
 * The sending end of a link: puts chunks into the right neighbour's slots.
 *
 * <p>Flow control follows NCCL: the link has {@link #slotCount()} slots and two counters that only
 * grow, {@code tail} (chunks posted, written by the sender) and {@code head} (chunks consumed,
 * written by the receiver). The sender may post while {@code tail - head < slotCount}. The counters
 * carry over from one broadcast to the next, so neither side ever resets them.
 *
 * @param <M> the kind of memory chunks are copied from; the pipeline never looks inside it
 */
public interface ChunkSender<M> extends RingLink {
    /** Number of slots: how many chunks may be posted and not yet consumed. */
    int slotCount();

    /** Largest chunk one slot holds. */
    int maxChunkBytes();

    /** True when a slot is free, so that {@link #trySend} would succeed. Never blocks. */
    boolean hasCredit();

    /**
     * Copies {@code length} bytes at {@code srcOffset} of {@code source} into the next slot and
     * publishes it to the receiver, if a slot is free; otherwise returns false at once.
     *
     * @param length 1 to {@link #maxChunkBytes()}
     */
    boolean trySend(M source, long srcOffset, int length);

    /** Chunks posted on this link since it was created (the tail counter). */
    long posted();
}
