package org.hbcast.transport.shm;

import org.agrona.BitUtil;

/**
 * Layout of a link between two ring neighbours: the one control layout of both transports. The
 * receiver creates the segment; the sender maps it. The shared-memory transport carries its chunks
 * in the segment's SLOTS; the CUDA transport keeps its slots in device memory and uses only the
 * control area (its segment has slots of {@link #SLOT_ALIGNMENT} bytes that stay unused). Both read
 * and write the control fields through {@link LinkControl} only.
 *
 * <pre>
 * offset  size            field         written by
 * 0       128             header        receiver, at creation ({@link SegmentHeader}: kind RING_INBOX,
 *                                       S slots of SLOT_BYTES (a multiple of 64), party = its node rank)
 * 128     8               TAIL          sender: chunks posted, only grows (ordered write, after the
 *                                       chunk's bytes and its SLOT_LENGTHS entry)
 * 256     8               HEAD          receiver: chunks consumed, only grows (ordered write, after
 *                                       its last read of the slot)
 * 384     4               ABORT         either side: 0, or 1 + node rank of the first failure (CAS)
 * 512     4 * S           SLOT_LENGTHS  sender: bytes in each slot, written before TAIL
 * 4096    S * SLOT_BYTES  SLOTS         sender: chunk i goes to slot i mod S (shared-memory transport)
 * </pre>
 *
 * The sender may post chunk {@code i} while {@code i - HEAD < S}; the receiver may read it once
 * {@code TAIL > i}. TAIL, HEAD and ABORT each get a 128-byte line of their own so the two sides do
 * not invalidate each other's cache lines (128 rather than 64 because the adjacent-line prefetcher
 * pairs lines). The header lets the sender check what it mapped (right owner, same geometry) instead
 * of trusting its own configuration. Slots start on a page so large copies run on aligned memory.
 */
public final class LinkLayout {
    /** The segment's header: kind, version, slot count, slot bytes and, as its party, the owner's node rank. */
    public static final SegmentHeader.Kind KIND = SegmentHeader.Kind.RING_INBOX;

    /** Slot sizes are multiples of this (a cache line). */
    public static final int SLOT_ALIGNMENT = 64;
    /** Most slots an inbox may have. */
    public static final int MAX_SLOT_COUNT = 256;
    /** Slots when the configuration does not say. */
    public static final int DEFAULT_SLOT_COUNT = 8;

    /** Each counter on a 128-byte line of its own (the adjacent-line prefetcher pairs 64-byte lines). */
    private static final int LINE = 128;
    /** Slots start on a page. */
    private static final int PAGE = 4096;

    /** Offset of the tail counter (chunks posted). */
    public static final int TAIL_OFFSET = SegmentHeader.LENGTH;
    /** Offset of the head counter (chunks consumed). */
    public static final int HEAD_OFFSET = TAIL_OFFSET + LINE;
    /** Offset of the abort word. */
    public static final int ABORT_OFFSET = HEAD_OFFSET + LINE;
    /** Offset of the per-slot chunk lengths. */
    public static final int SLOT_LENGTHS_OFFSET = ABORT_OFFSET + LINE;
    /** Offset of the first slot. */
    public static final int SLOTS_OFFSET = BitUtil.align(SLOT_LENGTHS_OFFSET + MAX_SLOT_COUNT * Integer.BYTES, PAGE);

    private LinkLayout() {}

    /** Slot size that holds chunks of up to {@code maxChunkBytes}: rounded up to {@link #SLOT_ALIGNMENT}. */
    public static int slotBytesFor(final int maxChunkBytes) {
        if (maxChunkBytes <= 0 || maxChunkBytes > Integer.MAX_VALUE - SLOT_ALIGNMENT) {
            throw new IllegalArgumentException("max chunk bytes out of range: " + maxChunkBytes);
        }
        return BitUtil.align(maxChunkBytes, SLOT_ALIGNMENT);
    }

    /**
     * Size of an inbox with {@code slotCount} slots of {@code slotBytes}.
     *
     * @throws IllegalArgumentException if the geometry is invalid or does not fit in one mapping
     */
    public static int segmentBytes(final int slotCount, final int slotBytes) {
        checkGeometry(slotCount, slotBytes);
        final long bytes = SLOTS_OFFSET + (long) slotCount * slotBytes;
        if (bytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    slotCount + " slots of " + slotBytes + " bytes do not fit in one mapping");
        }
        return (int) bytes;
    }

    /** Throws unless 1 &lt;= slotCount &lt;= 256 and slotBytes is a positive multiple of 64. */
    public static void checkGeometry(final int slotCount, final int slotBytes) {
        if (slotCount < 1 || slotCount > MAX_SLOT_COUNT) {
            throw new IllegalArgumentException("slot count must be within [1, " + MAX_SLOT_COUNT + "]: " + slotCount);
        }
        if (slotBytes <= 0 || slotBytes % SLOT_ALIGNMENT != 0) {
            throw new IllegalArgumentException(
                    "slot bytes must be a positive multiple of " + SLOT_ALIGNMENT + ": " + slotBytes);
        }
    }

    /** Offset of the slot that chunk number {@code sequence} (a counter value) occupies. */
    public static int slotOffset(final long sequence, final int slotCount, final int slotBytes) {
        return SLOTS_OFFSET + (int) (sequence % slotCount) * slotBytes;
    }

    /** Offset of the length word of the slot that chunk number {@code sequence} occupies. */
    public static int lengthOffset(final long sequence, final int slotCount) {
        return SLOT_LENGTHS_OFFSET + (int) (sequence % slotCount) * Integer.BYTES;
    }
}
