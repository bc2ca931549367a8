package org.hbcast.transport.cuda;

import java.io.IOException;
import org.hbcast.device.CudaStream;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.ChunkSender;
import org.hbcast.transport.shm.ShmOutbox;

/**
 * The sending end of a CUDA IPC ring link: copies chunks from this rank's device memory into the
 * right neighbour's, GPU to GPU with {@code cudaMemcpyAsync}, either straight into its buffer
 * ({@link LinkMode#DIRECT}) or into its slots ({@link LinkMode#STAGED}).
 *
 * <p>Flow control is the shared-memory link's: the right neighbour's control block (an
 * {@link ShmOutbox} whose host slots stay unused) carries TAIL, HEAD and ABORT. A copy is started
 * when {@code issued - HEAD < S}; an event is recorded after it; {@link #poll()} publishes TAIL (and
 * the chunk's length) only once that event has completed, so the receiver never sees a chunk whose
 * bytes are still in flight. No allocation after construction.
 */
public final class CudaIpcSender extends CudaLinkEnd implements ChunkSender<DeviceBuffer>, AutoCloseable {
    private final ShmOutbox control;
    private final long peerSlotsAddress;
    private final int[] lengths;
    private LinkMode mode = LinkMode.SLOTS;
    private long peerBufferAddress;
    private long peerBufferBytes;
    private long directOffset;
    private long issued;
    private long knownHead;

    /**
     * A sender over the right neighbour's control block {@code control}, whose slots of
     * geometry {@code slots} this process sees at {@code peerSlotsAddress} (an IPC mapping), copying
     * on {@code stream}.
     */
    public CudaIpcSender(
            final ShmOutbox control, final DeviceSlots slots, final long peerSlotsAddress, final CudaStream stream) {
        super(control, control.slotCount(), slots, stream);
        this.control = control;
        this.peerSlotsAddress = peerSlotsAddress;
        this.lengths = new int[slots.slotCount()];
        this.issued = control.posted();
        this.knownHead = control.head();
    }

    /** The next broadcast goes through the right neighbour's slots. Only between broadcasts. */
    public void bindSlots() {
        requireSettled();
        mode = LinkMode.SLOTS;
    }

    /**
     * The next broadcast goes straight into the right neighbour's buffer, which this process sees at
     * {@code peerAddress} ({@link IpcHandleCache#map}) and which holds {@code peerBytes}. Chunks land
     * at consecutive offsets from 0. Only between broadcasts.
     */
    public void bindDirect(final long peerAddress, final long peerBytes) {
        requireSettled();
        mode = LinkMode.DIRECT;
        peerBufferAddress = peerAddress;
        peerBufferBytes = peerBytes;
        directOffset = 0;
    }

    /** The mode of the current broadcast. */
    public LinkMode mode() {
        return mode;
    }

    @Override
    public boolean hasCredit() {
        final int slotCount = slots.slotCount();
        if (issued - knownHead < slotCount) {
            return true;
        }
        knownHead = control.head();
        return issued - knownHead < slotCount;
    }

    @Override
    public boolean trySend(final DeviceBuffer memory, final long srcOffset, final int length) {
        checkChunk(memory, srcOffset, length);
        if (!hasCredit()) {
            return false;
        }
        final long destination;
        if (mode == LinkMode.DIRECT) {
            if (directOffset + length > peerBufferBytes) {
                throw new IllegalStateException("node rank " + peerRank() + "'s buffer holds " + peerBufferBytes
                        + " bytes, chunk needs [" + directOffset + ", " + (directOffset + length) + ")");
            }
            destination = peerBufferAddress + directOffset;
            directOffset += length;
        } else {
            destination = peerSlotsAddress + slots.offset(issued);
        }
        copy(destination, memory.address() + srcOffset, length, "cudaMemcpyAsync to the right neighbour");
        events.record(issued, stream);
        lengths[(int) (issued % lengths.length)] = length;
        issued++;
        return true;
    }

    @Override
    public int poll() {
        int published = 0;
        long tail = control.posted();
        while (tail < issued && events.isComplete(tail)) {
            control.post(lengths[(int) (tail % lengths.length)]);
            tail++;
            published++;
        }
        return published;
    }

    @Override
    public boolean isSettled() {
        return control.posted() == issued;
    }

    @Override
    public long posted() {
        return control.posted();
    }

    /** Waits for copies in flight, destroys the events and unmaps the control block. */
    @Override
    public void close() throws IOException {
        try {
            stream.synchronize();
            events.close();
        } finally {
            control.close();
        }
    }

    @Override
    public String toString() {
        return "CudaIpcSender{rank " + localRank() + " to " + peerRank() + ", " + mode + ", issued " + issued
                + ", posted " + control.posted() + '}';
    }
}
