package org.hbcast.transport.shm;

import org.agrona.BitUtil;

/**
 * Layout of a node's fan-out segment: one writer (the node's leader of the call) copies each chunk
 * once into a slot, and every other rank of the node copies it out of that slot on its own. Against
 * the ring this halves the bytes copied per chunk ({@code n} copies instead of {@code 2(n - 1)}) and
 * lets the readers copy in parallel.
 *
 * <pre>
 * offset            size            field         written by
 * 0                 128             header        creator ({@link SegmentHeader}: kind FANOUT, S slots of
 *                                                 SLOT_BYTES (a multiple of 64), party = n, the node's rank count)
 * 128               8               TAIL          the call's writer: chunks posted, only grows
 * 256               4               ABORT         anyone: 0, or 1 + node rank of the first failure
 * 384 + 128 p       8               HEAD[p]       node rank p: chunks consumed, only grows
 * slotsOffset(n)    S * SLOT_BYTES  SLOTS         chunk with sequence q goes to slot q mod S
 * </pre>
 *
 * Sequences count chunks over the life of the segment, not per call, so the writer may change from
 * call to call without a reset: a writer publishes HEAD[self] = TAIL when it finishes, so every HEAD
 * reaches the end of every call and the next writer's flow control sees all of them. Chunk lengths
 * follow from the call (bytes, chunk size) that every rank knows, so they are not stored.
 */
public final class FanoutLayout {
    /** The segment's header: kind, version, slot count, slot bytes and, as its party, the node's rank count. */
    public static final SegmentHeader.Kind KIND = SegmentHeader.Kind.FANOUT;

    /** One 128-byte line per counter and per head, so writers and readers do not invalidate each other's lines. */
    public static final int HEAD_STRIDE = 128;
    /** Offset of the tail counter (chunks posted). */
    public static final int TAIL_OFFSET = SegmentHeader.LENGTH;
    /** Offset of the abort word. */
    public static final int ABORT_OFFSET = TAIL_OFFSET + HEAD_STRIDE;
    /** Offset of HEAD[0]; HEAD[p] is {@link #HEAD_STRIDE} further per rank. */
    public static final int HEADS_OFFSET = ABORT_OFFSET + HEAD_STRIDE;
    /** Slots start on a page boundary. */
    public static final int SLOTS_ALIGNMENT = 4096;
    /** Most ranks a node's fan-out serves. */
    public static final int MAX_PARTICIPANTS = 1024;

    private FanoutLayout() {}

    /** Offset of node rank {@code position}'s head counter. */
    public static int headOffset(final int position) {
        return HEADS_OFFSET + position * HEAD_STRIDE;
    }

    /** Offset of the first slot for {@code participants} ranks. */
    public static int slotsOffset(final int participants) {
        return BitUtil.align(headOffset(participants), SLOTS_ALIGNMENT);
    }

    /** Offset of the slot that the chunk with sequence {@code sequence} occupies. */
    public static int slotOffset(
            final int participants, final long sequence, final int slotCount, final int slotBytes) {
        return slotsOffset(participants) + (int) (sequence % slotCount) * slotBytes;
    }

    /**
     * Size of a fan-out segment.
     *
     * @throws IllegalArgumentException if the geometry is invalid or does not fit in one mapping
     */
    public static int segmentBytes(final int participants, final int slotCount, final int slotBytes) {
        if (participants < 2 || participants > MAX_PARTICIPANTS) {
            throw new IllegalArgumentException(
                    "participants must be within [2, " + MAX_PARTICIPANTS + "]: " + participants);
        }
        LinkLayout.checkGeometry(slotCount, slotBytes);
        final long bytes = slotsOffset(participants) + (long) slotCount * slotBytes;
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    slotCount + " slots of " + slotBytes + " bytes do not fit in one mapping");
        }
        return (int) bytes;
    }
}
