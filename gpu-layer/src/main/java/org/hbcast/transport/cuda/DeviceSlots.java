package org.hbcast.transport.cuda;

import org.hbcast.transport.shm.LinkLayout;

/**
 * Geometry of a CUDA link's slots: {@code slotCount} slots of {@code slotBytes} each in one
 * device allocation of the receiver, chunk number {@code i} (a link counter value) in slot
 * {@code i mod slotCount}. The same counters number the slots in the link's host control block
 * ({@link LinkLayout}), so both sides agree on where chunk {@code i} is.
 *
 * @param slotCount number of slots, as in the control block
 * @param slotBytes bytes per slot, a multiple of {@link LinkLayout#SLOT_ALIGNMENT}
 */
public record DeviceSlots(int slotCount, int slotBytes) {
    /** Checks the geometry as the control block does. */
    public DeviceSlots {
        LinkLayout.checkGeometry(slotCount, slotBytes);
    }

    /** Slots holding chunks of up to {@code maxChunkBytes} (rounded up to the alignment). */
    public static DeviceSlots of(final int slotCount, final int maxChunkBytes) {
        return new DeviceSlots(slotCount, LinkLayout.slotBytesFor(maxChunkBytes));
    }

    /** Offset in the slot allocation of the slot that chunk number {@code sequence} occupies. */
    public long offset(final long sequence) {
        if (sequence < 0) {
            throw new IllegalArgumentException("sequence must not be negative: " + sequence);
        }
        return (sequence % slotCount) * (long) slotBytes;
    }

    /** Size of the slot allocation. */
    public long totalBytes() {
        return (long) slotCount * slotBytes;
    }
}
