package org.hbcast.transport.cuda;

import java.io.IOException;
import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaException;
import org.hbcast.device.CudaStream;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.ChunkSender;
import org.hbcast.transport.shm.ShmOutbox;

/**
 * The sending end of a CUDA IPC ring link: copies chunks from this rank's device memory into the
 * right neighbour's, GPU to GPU with {@code cudaMemcpyAsync}, either straight into its buffer
 * ({@link LinkMode#DIRECT}) or into its slots ({@link LinkMode#SLOTS}).
 *
 * <p>Flow control is the shared-memory link's: the right neighbour's control block (an
 * {@link ShmOutbox} whose host slots stay unused) carries TAIL, HEAD and ABORT. A copy is started
 * when {@code issued - HEAD < S}; an event is recorded after it; {@link #poll()} publishes TAIL (and
 * the chunk's length) only once that event has completed, so the receiver never sees a chunk whose
 * bytes are still in flight. No allocation per chunk.
 *
 * <p>The right neighbour's buffer is mapped for one call only: its owner may free it as soon as its
 * call returns, and CUDA leaves freeing memory that another process maps undefined. The mapping is
 * closed once the call's last copy has completed and before its last chunk is published, so the
 * owner, which returns only after seeing that chunk, never frees it mapped. (Caching mappings across
 * calls would need the owner to guarantee the buffer's life, which a user's buffer does not.)
 */
public final class CudaIpcSender extends CudaLinkEnd implements ChunkSender<DeviceBuffer>, AutoCloseable {
    private final ShmOutbox control;
    private final long peerSlotsAddress;
    private final int[] lengths;
    private final CudaCalls calls;
    private LinkMode mode = LinkMode.SLOTS;
    private long peerBufferAddress;
    private long peerBufferBytes;
    private long directOffset;
    private long directBytes;
    private long directPosted;
    private boolean peerMapped;
    private boolean ownsMapping;
    private long userMappings;
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
        this.calls = stream.calls();
        this.issued = control.posted();
        this.knownHead = control.head();
    }

    /** The next broadcast goes through the right neighbour's slots. Only between broadcasts. */
    public void bindSlots() {
        requireSettled();
        mode = LinkMode.SLOTS;
    }

    /**
     * The next broadcast, of {@code callBytes}, goes straight into the right neighbour's buffer, whose
     * descriptor is at {@code offset} of {@code record}: maps it now ({@code cudaIpcOpenMemHandle}),
     * for this call only, and closes the mapping once the call's last copy has completed, before the
     * last chunk is published. Chunks land at consecutive offsets from 0. Takes the link's counters up
     * from its control block first, as {@link #bindMapped} does (a GPU group's copier changes with the
     * call's root). Only between broadcasts.
     */
    public void bindDirect(final byte[] record, final int offset, final long callBytes) {
        requireSettled();
        final long peerBytes = IpcDescriptor.bytesAt(record, offset);
        if (callBytes < 1 || callBytes > peerBytes) {
            throw new IllegalArgumentException(
                    "node rank " + peerRank() + "'s buffer holds " + peerBytes + " bytes, the call moves " + callBytes);
        }
        rejoin();
        try {
            // Read in place: mapping the buffer allocates nothing per call.
            peerBufferAddress = calls.ipcOpen(stream.device(), record, offset + IpcDescriptor.HANDLE_OFFSET);
        } catch (final CudaException ex) {
            throw new CudaException(
                    "cudaIpcOpenMemHandle(" + IpcDescriptor.decode(record, offset) + " of node rank " + peerRank()
                            + ")",
                    ex.error());
        }
        peerMapped = true;
        ownsMapping = true;
        userMappings++;
        mode = LinkMode.DIRECT;
        peerBufferBytes = peerBytes;
        directOffset = 0;
        directBytes = callBytes;
        directPosted = 0;
    }

    /**
     * The next broadcast, of {@code callBytes}, goes straight into the right neighbour's buffer of
     * {@code peerBytes}, which the caller has mapped at {@code mappedAddress} and keeps mapped (a GPU
     * group copier's cache): this end never closes it. Takes the link's counters up from its control
     * block first, since another rank may have written it in an earlier call. Only between broadcasts.
     */
    public void bindMapped(final long mappedAddress, final long peerBytes, final long callBytes) {
        requireSettled();
        if (callBytes < 1 || callBytes > peerBytes) {
            throw new IllegalArgumentException(
                    "node rank " + peerRank() + "'s buffer holds " + peerBytes + " bytes, the call moves " + callBytes);
        }
        rejoin();
        peerBufferAddress = mappedAddress;
        peerMapped = false;
        ownsMapping = false;
        mode = LinkMode.DIRECT;
        peerBufferBytes = peerBytes;
        directOffset = 0;
        directBytes = callBytes;
        directPosted = 0;
    }

    /** Another rank may have written this link's control block in an earlier call: start from its counters. */
    private void rejoin() {
        control.rejoin();
        issued = control.posted();
        knownHead = control.head();
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
            final int length = lengths[(int) (tail % lengths.length)];
            if (mode == LinkMode.DIRECT) {
                directPosted += length;
                if (directPosted == directBytes && ownsMapping) {
                    // Every copy of the call has completed (this event follows them on the stream); the
                    // owner may free its buffer once it sees this chunk, so the mapping goes first.
                    unmapPeer();
                }
            }
            control.post(length);
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

    /** IPC mappings of the right neighbour's buffers opened so far: one per direct call. */
    public long userMappings() {
        return userMappings;
    }

    /** True while the right neighbour's buffer is mapped (during a direct call, or after one that failed). */
    public boolean holdsUserMapping() {
        return peerMapped;
    }

    /** A failed call unmaps the right neighbour's buffer at once: its owner is about to return too. */
    @Override
    protected void afterAbort() {
        if (peerMapped) {
            unmapPeer();
        }
    }

    private void unmapPeer() {
        peerMapped = false;
        calls.ipcClose(stream.device(), peerBufferAddress);
    }

    /** Waits for copies in flight, unmaps a neighbour's buffer still mapped, destroys the events and unmaps the control block. */
    @Override
    public void close() throws IOException {
        final Closer closer = new Closer();
        closer.run(stream::synchronize);
        closer.run(() -> {
            if (peerMapped) {
                unmapPeer();
            }
        });
        closer.run(events::close);
        closer.run(control::close);
        closer.rethrow();
    }

    @Override
    public String toString() {
        return "CudaIpcSender{rank " + localRank() + " to " + peerRank() + ", " + mode + ", issued " + issued
                + ", posted " + control.posted() + '}';
    }
}
