package org.hbcast.transport.cuda;

import java.io.IOException;
import org.hbcast.device.CudaStream;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.ChunkReceiver;
import org.hbcast.transport.shm.LinkControl;
import org.hbcast.transport.shm.ShmInbox;

/**
 * The receiving end of a CUDA IPC ring link: this rank's control block (its {@link ShmInbox}, whose
 * host slots stay unused) and its device slots, which the left neighbour has mapped.
 *
 * <p>In {@link LinkMode#DIRECT} the left neighbour writes straight into this rank's bound buffer, so
 * a chunk that has arrived is already in place: {@link #copyChunk} has nothing to do and the slot
 * credit goes back at once. In {@link LinkMode#SLOTS} the chunk is in a slot: {@link #copyChunk}
 * queues a device copy into the buffer and {@link #release()} records an event; {@link #poll()}
 * hands the slot back (HEAD) only once that event, and with it every copy that read the slot on the
 * shared stream (the forward to the right neighbour included), has completed.
 */
public final class CudaIpcReceiver extends CudaLinkEnd implements ChunkReceiver<DeviceBuffer>, AutoCloseable {
    private final ShmInbox inbox;
    private final LinkControl control;
    private final DeviceBuffer slotMemory;
    private LinkMode mode = LinkMode.SLOTS;
    private DeviceBuffer bound;
    private long directOffset;
    private long taken;
    private long knownTail;

    /**
     * A receiver over this rank's control block {@code control} and slots {@code slotMemory}
     * of geometry {@code slots}, copying on {@code stream}. Owns neither the slots nor the stream.
     */
    public CudaIpcReceiver(
            final ShmInbox control, final DeviceSlots slots, final DeviceBuffer slotMemory, final CudaStream stream) {
        super(control, control.slotCount(), slots, stream);
        if (slotMemory.bytes() < slots.totalBytes()) {
            throw new IllegalArgumentException(
                    "slot memory of " + slotMemory.bytes() + " bytes, " + slots + " need " + slots.totalBytes());
        }
        this.inbox = control;
        this.control = control.control();
        this.slotMemory = slotMemory;
        this.taken = inbox.consumed();
        this.knownTail = taken;
    }

    /** The next broadcast arrives through the slots into {@code buffer}. Only between broadcasts. */
    public void bindSlots(final DeviceBuffer buffer) {
        requireSettled();
        mode = LinkMode.SLOTS;
        bound = buffer;
    }

    /**
     * The next broadcast arrives straight in {@code buffer}, whose descriptor the left neighbour has
     * received. Only between broadcasts.
     */
    public void bindDirect(final DeviceBuffer buffer) {
        requireSettled();
        mode = LinkMode.DIRECT;
        bound = buffer;
        directOffset = 0;
    }

    @Override
    public boolean hasChunk() {
        if (taken < knownTail) {
            return true;
        }
        knownTail = control.tail();
        return taken < knownTail;
    }

    @Override
    public int chunkLength() {
        return control.length(taken);
    }

    @Override
    public DeviceBuffer chunkMemory() {
        return mode == LinkMode.DIRECT ? bound : slotMemory;
    }

    @Override
    public long chunkOffset() {
        return mode == LinkMode.DIRECT ? directOffset : slots.offset(taken);
    }

    @Override
    public void copyChunk(final DeviceBuffer dest, final long dstOffset, final int length) {
        checkChunk(dest, dstOffset, length);
        if (mode == LinkMode.DIRECT && dest == bound && dstOffset == directOffset) {
            return;
        }
        copy(
                dest.address() + dstOffset,
                chunkMemory().address() + chunkOffset(),
                length,
                "cudaMemcpyAsync from a ring slot");
    }

    @Override
    public void release() {
        if (mode == LinkMode.DIRECT) {
            directOffset += chunkLength();
            taken++;
            // Nothing of ours reads the left neighbour's writes later in a way that needs the credit held.
            inbox.release();
            return;
        }
        events.record(taken, stream);
        taken++;
    }

    @Override
    public int poll() {
        int released = 0;
        long head = inbox.consumed();
        while (head < taken && events.isComplete(head)) {
            inbox.release();
            head++;
            released++;
        }
        return released;
    }

    @Override
    public boolean isSettled() {
        return inbox.consumed() == taken;
    }

    @Override
    public long consumed() {
        return taken;
    }

    /** Waits for copies in flight and destroys the events; the control block is closed by its owner. */
    @Override
    public void close() throws IOException {
        stream.synchronize();
        events.close();
    }

    @Override
    public String toString() {
        return "CudaIpcReceiver{rank " + localRank() + " from " + peerRank() + ", " + mode + ", taken " + taken
                + ", released " + inbox.consumed() + '}';
    }
}
