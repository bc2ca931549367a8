package org.hbcast.transport.cuda;

import java.io.IOException;
import java.nio.file.Path;
import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaStream;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.RingPipeline;
import org.hbcast.engine.RingRole;
import org.hbcast.stage.StageException;
import org.hbcast.transport.shm.LinkLayout;
import org.hbcast.transport.shm.ShmInbox;
import org.hbcast.transport.shm.ShmOutbox;

/**
 * One rank's part of the node's CUDA IPC ring: its control block (a shared-memory inbox used only for
 * its counters), its device slots, one stream, and, once connected, its two links and the
 * pipeline over them. Runs between the GPU leaders of a node ({@link GpuGroupMember}, position = group
 * index). Knows nothing of MPI; the caller exchanges what {@link #controlPath()} and
 * {@link #slotDescriptor()} return (an all-gather over the node communicator) and gives each call
 * the wire ({@link NeighbourExchange}) over which it learns its right neighbour's buffer descriptor
 * when the call goes buffer to buffer: the choice of {@link LinkMode} is this transport's own.
 *
 * <pre>{@code
 * CudaRingMember me = CudaRingMember.create(calls, dir, position, ringSize, device, 8, 1 << 20);
 * me.connect(allGather(me.controlPath()), allGather(me.slotDescriptor()));
 * barrier(); me.unlinkControl();
 * // per broadcast: Stage ring = me.start(buf, bytes, chunkBytes, firstNodeRank, fed, wire); drive it
 * }</pre>
 */
public final class CudaRingMember implements AutoCloseable {
    /** IPC mappings kept per peer: the ring maps only its neighbour's slots; users' buffers are mapped per call. */
    public static final int MAPPINGS_PER_PEER = 1;
    /**
     * Bytes from which a call copies buffer to buffer ({@link LinkMode#DIRECT}); below, chunks go
     * through slots mapped once at connect. Why: a second copy costs microseconds, mapping a
     * neighbour's buffer for one call tens of them on every hop (docs/tuning.md). The system property
     * {@code hbcast.device.directMinBytes} moves it, to measure one mode against the other on a GPU.
     */
    public static final long DIRECT_MIN_BYTES = Long.getLong("hbcast.device.directMinBytes", 32 << 20);

    /**
     * Bytes of a device call's chunk and slot unless the options fix one. Large because a GPU hop's
     * cost is mostly fixed (an event, a flag, a context switch where ranks share a GPU; docs/tuning.md).
     */
    public static final int CHUNK_BYTES = 4 << 20;

    private final int position;
    private final int ringSize;
    private final int device;
    private final DeviceSlots slots;
    private final ShmInbox control;
    private final DeviceBuffer slotMemory;
    private final CudaStream stream;
    private final IpcHandleCache mappings;
    private CudaIpcSender sender;
    private CudaIpcReceiver receiver;
    private boolean peersUnmapped;
    private RingPipeline<DeviceBuffer> pipeline;
    /** Where buffer-to-buffer calls find the right neighbour's buffer mapped, if its owner guards its frees. */
    private IpcHandleCache keptMappings;

    private final byte[] myDescriptor = new byte[IpcDescriptor.BYTES];
    private final byte[] rightDescriptor = new byte[IpcDescriptor.BYTES];

    private CudaRingMember(
            final int position,
            final int ringSize,
            final int device,
            final DeviceSlots slots,
            final ShmInbox control,
            final DeviceBuffer slotMemory,
            final CudaStream stream) {
        this.position = position;
        this.ringSize = ringSize;
        this.device = device;
        this.slots = slots;
        this.control = control;
        this.slotMemory = slotMemory;
        this.stream = stream;
        this.mappings = new IpcHandleCache(stream.calls(), device, MAPPINGS_PER_PEER);
    }

    /**
     * Creates the control block in {@code directory}, {@code slotCount} device slots for chunks of up
     * to {@code maxChunkBytes} on {@code device}, and the stream, every CUDA call made through
     * {@code calls}.
     */
    public static CudaRingMember create(
            final CudaCalls calls,
            final Path directory,
            final int position,
            final int ringSize,
            final int device,
            final int slotCount,
            final int maxChunkBytes)
            throws IOException {
        if (ringSize < 1 || position < 0 || position >= ringSize) {
            throw new IllegalArgumentException("position " + position + " outside ring of " + ringSize);
        }
        final DeviceSlots slots = DeviceSlots.of(slotCount, maxChunkBytes);
        final ShmInbox control = ShmInbox.create(directory, position, slotCount, LinkLayout.SLOT_ALIGNMENT);
        DeviceBuffer slotMemory = null;
        try {
            slotMemory = DeviceBuffer.allocate(slots.totalBytes(), device, calls);
            return new CudaRingMember(
                    position, ringSize, device, slots, control, slotMemory, new CudaStream(calls, device));
        } catch (final RuntimeException ex) {
            if (slotMemory != null) {
                slotMemory.close();
            }
            control.close();
            throw ex;
        }
    }

    /** Path of this rank's control block, for the left neighbour. */
    public Path controlPath() {
        return control.path();
    }

    /** This rank's slots as an encoded {@link IpcDescriptor}, for the left neighbour. */
    public byte[] slotDescriptor() {
        final byte[] record = new byte[IpcDescriptor.BYTES];
        IpcDescriptor.of(slotMemory).encode(record, 0);
        return record;
    }

    /**
     * Maps the right neighbour's control block and slots. {@code controlPaths[i]} and the descriptor
     * at {@code i * IpcDescriptor.BYTES} of {@code slotDescriptors} belong to node rank {@code i}.
     */
    public void connect(final String[] controlPaths, final byte[] slotDescriptors) throws IOException {
        if (controlPaths.length != ringSize || slotDescriptors.length != ringSize * IpcDescriptor.BYTES) {
            throw new IllegalArgumentException("expected the paths and slot descriptors of " + ringSize + " ranks");
        }
        if (ringSize == 1) {
            pipeline = RingPipeline.alone();
            return;
        }
        final int right = rightRank();
        final ShmOutbox outbox = ShmOutbox.open(Path.of(controlPaths[right]), position, right);
        try {
            final long peerSlots = mappings.map(right, slotDescriptors, right * IpcDescriptor.BYTES);
            sender = new CudaIpcSender(outbox, slots, peerSlots, stream);
        } catch (final RuntimeException ex) {
            outbox.close();
            throw ex;
        }
        // Without it the receiver's errors name the left neighbour "node rank -1".
        control.connectFrom((position - 1 + ringSize) % ringSize);
        receiver = new CudaIpcReceiver(control, slots, slotMemory, stream);
        pipeline = new RingPipeline<>(sender, receiver);
    }

    /** Removes the control block's file; call once every rank has connected. */
    public void unlinkControl() throws IOException {
        control.unlink();
    }

    /**
     * Starts this rank's part of a broadcast of {@code bytes} of {@code buffer} along the ring from
     * node rank {@code first}: picks the link mode (neighbours swap their buffers' descriptors over
     * {@code wire} when it is {@link LinkMode#DIRECT}) and resets the pipeline. Collective over the
     * node's ring when the call goes buffer to buffer.
     *
     * @param fed true on a first rank whose chunks arrive from elsewhere (a leader's staging copies)
     */
    public RingPipeline<DeviceBuffer> start(
            final DeviceBuffer buffer,
            final long bytes,
            final int chunkBytes,
            final int first,
            final boolean fed,
            final NeighbourExchange wire) {
        final RingRole role = role(first);
        if (bytes >= DIRECT_MIN_BYTES && ringSize > 1) {
            startDirect(buffer, bytes, role, wire);
        } else {
            bindSlots(buffer);
        }
        return fed ? pipeline.resetFed(buffer, bytes, chunkBytes) : pipeline.reset(role, buffer, bytes, chunkBytes);
    }

    /**
     * The per-call part of a buffer-to-buffer call, where any rank may fail before its neighbours'
     * progress loops run: a rank that cannot describe its buffer still joins the swap with a refusal,
     * so its left neighbour is not left waiting for a descriptor, and any failure here sets the abort
     * word of both links, so the neighbours' loops end at once instead of at their timeout.
     */
    private void startDirect(
            final DeviceBuffer buffer, final long bytes, final RingRole role, final NeighbourExchange wire) {
        RuntimeException failure = null;
        try {
            IpcDescriptor.encode(buffer, myDescriptor, 0);
        } catch (final RuntimeException ex) {
            failure = ex;
            IpcDescriptor.encodeRefusal(myDescriptor, 0);
        }
        try {
            wire.swap(myDescriptor, rightDescriptor);
            if (failure != null) {
                throw failure;
            }
            if (IpcDescriptor.isRefusal(rightDescriptor, 0)) {
                throw new StageException("node rank " + rightRank() + " (right neighbour) could not take part in"
                        + " this call (see its error); node rank " + position + " gives up too");
            }
            bindDirect(buffer, bytes, role.sends(), rightDescriptor, 0);
        } catch (final RuntimeException ex) {
            abortLinks();
            throw ex;
        }
    }

    /** Sets the abort word of both links on this rank's behalf, so neither neighbour waits for it. */
    public void abort() {
        abortLinks();
    }

    private void abortLinks() {
        if (sender != null) {
            sender.abort(position);
            receiver.abort(position);
        }
    }

    /** The next broadcast goes through the slots; {@code buffer} is this rank's. */
    private void bindSlots(final DeviceBuffer buffer) {
        if (sender != null) {
            sender.bindSlots();
            receiver.bindSlots(buffer);
        }
    }

    /**
     * The next broadcast, of {@code bytes}, goes straight from buffer to buffer: {@code buffer} is
     * this rank's, the right neighbour's is described at {@code offset} of {@code rightDescriptor}
     * (mapped for this call). {@code sends} says whether this rank sends in this broadcast (a LAST
     * rank needs no mapping).
     */
    private void bindDirect(
            final DeviceBuffer buffer,
            final long bytes,
            final boolean sends,
            final byte[] rightDescriptor,
            final int offset) {
        if (sender == null) {
            return;
        }
        // The program's own memory may be freed as soon as its owner's call returns: never kept mapped.
        if (sends && keptMappings != null && !IpcDescriptor.isProgramMemoryAt(rightDescriptor, offset)) {
            final long mapped = keptMappings.map(rightRank(), rightDescriptor, offset);
            sender.bindMapped(mapped, IpcDescriptor.bytesAt(rightDescriptor, offset), bytes);
        } else if (sends) {
            sender.bindDirect(rightDescriptor, offset, bytes);
        } else {
            sender.bindSlots();
        }
        receiver.bindDirect(buffer);
    }

    /**
     * From now on buffer-to-buffer calls map the right neighbour's buffer through {@code mappings} and
     * keep it mapped, instead of for one call: only where the neighbour's buffers cannot be freed while
     * mapped (the GPU groups guard them and close the mapping first). The program's own memory
     * ({@link IpcDescriptor#isProgramMemoryAt}) is still mapped for its call only. The caller owns
     * {@code mappings}.
     */
    public void keepMappingsIn(final IpcHandleCache mappings) {
        this.keptMappings = mappings;
    }

    /** The mode the sending link is in (slots before the first call and in a ring of one). */
    public LinkMode senderMode() {
        return sender == null ? LinkMode.SLOTS : sender.mode();
    }

    /** This rank's role when the chain starts at node rank {@code start}. */
    public RingRole role(final int start) {
        return RingRole.of(ringSize, position, start);
    }

    /** The IPC mappings of the ring's own memory (the right neighbour's slots) this rank holds. */
    public IpcHandleCache mappings() {
        return mappings;
    }

    /** IPC mappings of the right neighbour's buffers opened so far: one per direct call this rank sent in. */
    public long userMappingOpens() {
        return sender == null ? 0 : sender.userMappings();
    }

    /** True while this rank maps a neighbour's buffer: never between calls that succeeded. */
    public boolean holdsUserMapping() {
        return sender != null && sender.holdsUserMapping();
    }

    /** The stream every copy of this rank's links is queued on. */
    public CudaStream stream() {
        return stream;
    }

    /** The CUDA device of this rank. */
    public int device() {
        return device;
    }

    /** This rank's node rank. */
    public int position() {
        return position;
    }

    /** Node rank of the right neighbour. */
    public int rightRank() {
        return (position + 1) % ringSize;
    }

    /** Releases everything: links, mappings, slots, stream, control block. Tries all; throws the first failure. */
    @Override
    public void close() throws IOException {
        final Closer closer = new Closer();
        closer.run(this::unmapPeers);
        closer.run(slotMemory::close);
        closer.run(stream::close);
        closer.run(control::close);
        closer.rethrow();
    }

    /**
     * The first half of closing: waits for this rank's copies and closes its mappings of the peers'
     * memory (the right neighbour's slots and control block; user buffers are mapped per call only),
     * keeping its own. CUDA makes freeing memory that another process still maps undefined, so the node
     * must agree that every rank has done this (a barrier) before any frees its slots in {@link #close}.
     * Idempotent.
     */
    public void unmapPeers() throws IOException {
        if (peersUnmapped) {
            return;
        }
        peersUnmapped = true;
        final Closer closer = new Closer();
        closer.run(() -> stream.synchronize());
        if (sender != null) {
            closer.run(sender::close);
            closer.run(receiver::close);
        }
        closer.run(mappings::close);
        closer.rethrow();
    }
}
