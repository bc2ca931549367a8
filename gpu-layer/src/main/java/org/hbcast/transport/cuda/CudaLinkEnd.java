package org.hbcast.transport.cuda;

import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaException;
import org.hbcast.device.CudaStream;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.RingLink;

/**
 * What both ends of a CUDA IPC ring link share: the host control block they take their counters and
 * abort word from, the slot geometry, the member's stream, their own events, and the device-to-device
 * copy that neither allocates nor blocks.
 */
abstract class CudaLinkEnd implements RingLink {
    protected final DeviceSlots slots;
    protected final CudaStream stream;
    protected final EventRing events;
    private final RingLink control;
    private final CudaCalls calls;

    CudaLinkEnd(final RingLink control, final int controlSlots, final DeviceSlots slots, final CudaStream stream) {
        if (controlSlots != slots.slotCount()) {
            throw new IllegalArgumentException(
                    "control block has " + controlSlots + " slots, device slots " + slots.slotCount());
        }
        this.control = control;
        this.slots = slots;
        this.stream = stream;
        this.calls = stream.calls();
        this.events = new EventRing(calls, stream.device(), slots.slotCount());
    }

    /** Queues a copy of {@code length} bytes from device address {@code from} to {@code to} on the stream. */
    protected final void copy(final long to, final long from, final int length, final String what) {
        try {
            calls.copyAsync(to, from, length, CudaCalls.CopyKind.DEVICE_TO_DEVICE, stream.handle());
        } catch (final CudaException ex) {
            // Built only on failure: a chunk's copy must not allocate.
            throw new CudaException(
                    what + " (node rank " + localRank() + ", peer node rank " + peerRank() + ")", ex.error());
        }
    }

    /** Throws unless the chunk fits a slot and {@code [offset, offset + length)} lies in {@code buffer}. */
    protected final void checkChunk(final DeviceBuffer buffer, final long offset, final int length) {
        if (length <= 0 || length > slots.slotBytes()) {
            throw new IllegalArgumentException("chunk length must be within [1, " + slots.slotBytes() + "]: " + length);
        }
        if (offset < 0 || offset + length > buffer.bytes()) {
            throw new IndexOutOfBoundsException(
                    "chunk of " + length + " bytes at offset " + offset + " outside " + buffer);
        }
    }

    /** Mode changes happen only between broadcasts. */
    protected final void requireSettled() {
        if (!isSettled()) {
            throw new IllegalStateException("copies of the previous broadcast are still in flight");
        }
    }

    @Override
    public final int peerRank() {
        return control.peerRank();
    }

    @Override
    public final int localRank() {
        return control.localRank();
    }

    /** Number of slots, as in the control block. */
    public final int slotCount() {
        return slots.slotCount();
    }

    /** Largest chunk: one slot. */
    public final int maxChunkBytes() {
        return slots.slotBytes();
    }

    @Override
    public final int abortOrigin() {
        return control.abortOrigin();
    }

    /**
     * Sets the abort word, then waits for this rank's copies in flight: the call is about to fail and
     * return, and a copy landing later would write into (or read from) memory its owner may already
     * have reused or freed. A CUDA error met while waiting is dropped: the call reports the first
     * failure, and a sticky error shows again at close.
     */
    @Override
    public final void abort(final int originRank) {
        control.abort(originRank);
        try {
            stream.synchronize();
        } catch (final RuntimeException alreadyFailing) {
            // The failure being reported is the first one; this is its echo (and the stream is dead).
        }
        try {
            afterAbort();
        } catch (final RuntimeException alreadyFailing) {
            // As above: a sticky error shows again at close.
        }
    }

    /** What an end releases once its copies in flight have completed after an abort. */
    protected void afterAbort() {}
}
