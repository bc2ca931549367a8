package org.hbcast.transport.shm;

import org.agrona.concurrent.UnsafeBuffer;

/**
 * The control fields of one link ({@link LinkLayout}): TAIL and the slot lengths, written by the
 * sender; HEAD, written by the receiver; ABORT, set by either. Both transports move their counters
 * through this class only, so the ordering rules live in one place: a length before its TAIL, every
 * read of a slot before the HEAD that frees it. Allocation-free.
 */
public final class LinkControl {
    private final UnsafeBuffer buffer;
    private final int slotCount;

    LinkControl(final UnsafeBuffer buffer, final int slotCount) {
        this.buffer = buffer;
        this.slotCount = slotCount;
    }

    /** Slots of the link. */
    public int slotCount() {
        return slotCount;
    }

    /** Chunks posted, read with acquire semantics: the chunk bytes and lengths before it are visible. */
    public long tail() {
        return buffer.getLongVolatile(LinkLayout.TAIL_OFFSET);
    }

    /** Chunks consumed, read with acquire semantics. */
    public long head() {
        return buffer.getLongVolatile(LinkLayout.HEAD_OFFSET);
    }

    /** Bytes of chunk {@code sequence}; only once {@link #tail()} is past it. */
    public int length(final long sequence) {
        return buffer.getInt(LinkLayout.lengthOffset(sequence, slotCount));
    }

    /**
     * The sender publishes chunk {@code sequence} of {@code length} bytes, whose data is already where
     * the receiver will look: the length first, then TAIL = {@code sequence + 1}, ordered.
     */
    public void post(final long sequence, final int length) {
        buffer.putInt(LinkLayout.lengthOffset(sequence, slotCount), length);
        buffer.putLongOrdered(LinkLayout.TAIL_OFFSET, sequence + 1);
    }

    /** The receiver frees every slot below {@code head}: its reads of them happen before, ordered. */
    public void release(final long head) {
        buffer.putLongOrdered(LinkLayout.HEAD_OFFSET, head);
    }

    /** The node rank whose failure aborted the link, or {@code RingLink.NOT_ABORTED}. */
    public int abortOrigin() {
        return AbortWord.origin(buffer, LinkLayout.ABORT_OFFSET);
    }

    /** Marks the link aborted on behalf of {@code originRank}; the first origin recorded wins. */
    public void abort(final int originRank) {
        AbortWord.set(buffer, LinkLayout.ABORT_OFFSET, originRank);
    }
}
