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
 * 0                 8               MAGIC         creator, last, once the header below is in place
 * 8                 4               VERSION       creator
 * 12                4               SLOT_COUNT    creator (S)
 * 16                4               SLOT_BYTES    creator (multiple of 64)
 * 20                4               PARTICIPANTS  creator (n, the node's rank count)
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
    /** "HBCFAN01" read as a little-endian long. */
    public static final long MAGIC = 0x31304E4146434248L;
    /** Version of this layout; an opener refuses any other. */
    public static final int VERSION = 1;

    /** Offset of the magic word. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 8;
    /** Offset of the slot count S. */
    public static final int SLOT_COUNT_OFFSET = 12;
    /** Offset of the slot size. */
    public static final int SLOT_BYTES_OFFSET = 16;
    /** Offset of the participant count n. */
    public static final int PARTICIPANTS_OFFSET = 20;
    /** Offset of the tail counter (chunks posted). */
    public static final int TAIL_OFFSET = 128;
    /** Offset of the abort word. */
    public static final int ABORT_OFFSET = 256;
    /** Offset of HEAD[0]; HEAD[p] is {@link #HEAD_STRIDE} further per rank. */
    public static final int HEADS_OFFSET = 384;
    /** One 128-byte line per head, so readers do not invalidate each other's lines. */
    public static final int HEAD_STRIDE = 128;
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
