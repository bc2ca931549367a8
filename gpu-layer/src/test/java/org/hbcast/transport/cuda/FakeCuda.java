package org.hbcast.transport.cuda;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import jcuda.runtime.cudaError;
import org.agrona.BufferUtil;
import org.agrona.UnsafeAccess;
import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaException;
import org.hbcast.device.PointerAttributes;

/**
 * An in-process stand-in for a GPU that is as unhelpful as CUDA allows: every queued copy, memset
 * and event record waits on its stream until a seeded scheduler runs it, streams advance in a random
 * order (so copies of different streams complete late and out of order), and only a stream's own
 * FIFO order is kept, as CUDA guarantees. Device memory is native memory, so the code under test
 * copies real bytes.
 *
 * <p>It also checks what CUDA leaves undefined and a GPU would silently corrupt, recording each
 * breach in {@link #violations()}: a copy that touches memory no allocation or open mapping covers,
 * a copy that reads bytes another stream has still to write or writes bytes another stream has still
 * to read (the ring's flow control must order them through events), freeing memory that a peer
 * still maps, and closing a mapping that queued copies still use.
 *
 * <p>Failures can be injected: a copy that fails when queued, or one that fails when it runs (its
 * stream then reports the error at every later event and synchronize, as a sticky CUDA error does).
 * With {@link #lieAboutEvents} events report completion at once, which a correct protocol notices as
 * wrong bytes: the proof that the tests can fail. One lock guards everything: ranks may start a call
 * on their own threads.
 */
final class FakeCuda implements CudaCalls {
    /** Where IPC mappings live: far above any native address, so a mapped address is never mistaken. */
    private static final long MAPPING_BASE = 1L << 52;

    private final Random random;
    private final TreeMap<Long, Region> regions = new TreeMap<>();
    private final Map<Long, Region> byHandle = new HashMap<>();
    private final List<Stream> streams = new ArrayList<>();
    private final List<Event> events = new ArrayList<>();
    private final List<String> violations = new ArrayList<>();
    private long nextMapping = MAPPING_BASE;
    private long nextHandle = 1;
    private long copiesQueued;
    private long failQueuedCopy = -1;
    private long failRunningCopy = -1;
    private boolean lying;
    private long opens;
    private long closes;
    private BiPredicate<Integer, Integer> peerAccess = (device, peer) -> true;
    private int peerQueries;
    private long failHandleOf;
    private long failOpen = -1;
    private long openAttempts;
    private long nextBufferId = 1;

    FakeCuda(final long seed) {
        this.random = new Random(seed);
    }

    /** Copy number {@code n} (from 1) fails when queued. */
    synchronized FakeCuda failQueuedCopy(final long n) {
        failQueuedCopy = n;
        return this;
    }

    /** Copy number {@code n} (from 1) fails when it runs: a sticky error on its stream. */
    synchronized FakeCuda failRunningCopy(final long n) {
        failRunningCopy = n;
        return this;
    }

    /** The allocation at {@code address} cannot give an IPC handle (as a buffer of another API may not). */
    synchronized FakeCuda failIpcHandleOf(final long address) {
        failHandleOf = address;
        return this;
    }

    /** IPC open number {@code n} (from 1) fails. */
    synchronized FakeCuda failIpcOpen(final long n) {
        failOpen = n;
        return this;
    }

    /** Events report completion at once, copies still landing late: a broken GPU to prove the tests fail. */
    synchronized FakeCuda lieAboutEvents() {
        lying = true;
        return this;
    }

    synchronized List<String> violations() {
        return new ArrayList<>(violations);
    }

    synchronized long ipcOpens() {
        return opens;
    }

    synchronized long ipcCloses() {
        return closes;
    }

    /** Mappings open now. */
    synchronized int openMappings() {
        int open = 0;
        for (final Region region : regions.values()) {
            open += region.target != null ? 1 : 0;
        }
        return open;
    }

    /** Allocations not freed. */
    synchronized int liveAllocations() {
        int live = 0;
        for (final Region region : regions.values()) {
            live += region.target == null ? 1 : 0;
        }
        return live;
    }

    /** Pinned host memory of {@code bytes}, addressable by copies; never freed (tests are short). */
    synchronized long hostAlloc(final long bytes) {
        return allocate(bytes, -1).base;
    }

    /** Managed memory of {@code bytes} on {@code device} ({@code cudaMallocManaged}): not IPC-exportable. */
    synchronized long managedAlloc(final long bytes, final int device) {
        final Region region = allocate(bytes, device);
        region.kind = PointerAttributes.Kind.MANAGED;
        region.ipcCapable = false;
        return region.base;
    }

    /**
     * The allocation at {@code address} is freed and another made at the very same address, as an
     * allocator that reuses addresses does: same memory, a new driver id.
     */
    synchronized void reallocateInPlace(final long address) {
        regions.get(address).bufferId = nextBufferId++;
    }

    /** Stream-ordered pool memory of {@code bytes} on {@code device} ({@code cudaMallocAsync}): not legacy-IPC-exportable. */
    synchronized long poolAlloc(final long bytes, final int device) {
        final Region region = allocate(bytes, device);
        region.fromPool = true;
        region.ipcCapable = false;
        return region.base;
    }

    /** Writes {@code data} at {@code address} at once (a test filling a root's buffer). */
    synchronized void write(final long address, final byte[] data) {
        final long physical = physical(address, data.length, "write");
        for (int i = 0; i < data.length; i++) {
            UnsafeAccess.UNSAFE.putByte(physical + i, data[i]);
        }
    }

    /** Reads {@code length} bytes at {@code address} as they are now. */
    synchronized byte[] read(final long address, final int length) {
        final long physical = physical(address, length, "read");
        final byte[] data = new byte[length];
        for (int i = 0; i < length; i++) {
            data[i] = UnsafeAccess.UNSAFE.getByte(physical + i);
        }
        return data;
    }

    @Override
    public synchronized long malloc(final int device, final long bytes) {
        return allocate(Math.max(bytes, 1), device).base;
    }

    private Region allocate(final long bytes, final int device) {
        final ByteBuffer memory = ByteBuffer.allocateDirect((int) bytes);
        final Region region = new Region(BufferUtil.address(memory), bytes, device, memory, null);
        region.kind = device < 0 ? PointerAttributes.Kind.HOST : PointerAttributes.Kind.DEVICE;
        region.ipcCapable = device >= 0;
        region.bufferId = nextBufferId++;
        regions.put(region.base, region);
        return region;
    }

    @Override
    public synchronized void free(final int device, final long address) {
        final Region region = regions.get(address);
        if (region == null || region.target != null) {
            throw new CudaException("cudaFree", cudaError.cudaErrorInvalidValue);
        }
        if (region.mappedBy > 0) {
            violations.add("freed " + region + " while " + region.mappedBy + " mapping(s) of it are open");
        }
        for (final Stream stream : streams) {
            for (final Op op : stream.queue) {
                if (op.touches(region.base, region.bytes)) {
                    violations.add("freed " + region + " under a queued " + op);
                }
            }
        }
        regions.remove(address);
        byHandle.values().remove(region);
    }

    @Override
    public synchronized byte[] ipcGetHandle(final int device, final long address) {
        final Region region = regions.get(address);
        if (region == null || region.target != null || address == failHandleOf || !region.ipcCapable) {
            throw new CudaException("cudaIpcGetMemHandle", cudaError.cudaErrorInvalidValue);
        }
        if (region.handle == 0) {
            region.handle = nextHandle++;
            byHandle.put(region.handle, region);
        }
        final byte[] handle = new byte[64];
        ByteBuffer.wrap(handle).putLong(region.handle);
        return handle;
    }

    @Override
    public synchronized long ipcOpen(final int device, final byte[] record, final int offset) {
        if (++openAttempts == failOpen) {
            throw new CudaException("cudaIpcOpenMemHandle", cudaError.cudaErrorMapBufferObjectFailed);
        }
        final Region target = byHandle.get(ByteBuffer.wrap(record, offset, 8).getLong());
        if (target == null) {
            // A freed allocation's handle: CUDA reports an invalid handle (or maps garbage).
            throw new CudaException("cudaIpcOpenMemHandle", cudaError.cudaErrorInvalidResourceHandle);
        }
        final Region mapping = new Region(nextMapping, target.bytes, device, null, target);
        nextMapping += 1L << 40;
        target.mappedBy++;
        regions.put(mapping.base, mapping);
        opens++;
        return mapping.base;
    }

    @Override
    public synchronized void ipcClose(final int device, final long address) {
        final Region mapping = regions.get(address);
        if (mapping == null || mapping.target == null) {
            throw new CudaException("cudaIpcCloseMemHandle", cudaError.cudaErrorInvalidValue);
        }
        for (final Stream stream : streams) {
            for (final Op op : stream.queue) {
                if (op.through(mapping)) {
                    violations.add("closed " + mapping + " under a queued " + op);
                }
            }
        }
        mapping.target.mappedBy--;
        regions.remove(address);
        closes++;
    }

    @Override
    public synchronized long streamCreate(final int device) {
        streams.add(new Stream(streams.size()));
        return streams.size() - 1;
    }

    @Override
    public synchronized void streamSynchronize(final long stream) {
        final Stream s = streams.get((int) stream);
        while (!s.queue.isEmpty()) {
            runHead(s);
        }
        s.throwIfFailed("cudaStreamSynchronize");
    }

    @Override
    public synchronized void streamDestroy(final long stream) {
        final Stream s = streams.get((int) stream);
        while (!s.queue.isEmpty()) {
            runHead(s);
        }
        s.destroyed = true;
    }

    @Override
    public synchronized long eventCreate(final int device) {
        events.add(new Event());
        return events.size() - 1;
    }

    @Override
    public synchronized void eventRecord(final long event, final long stream) {
        final Stream s = streams.get((int) stream);
        s.throwIfFailed("cudaEventRecord");
        final Op record = new Op(s, events.get((int) event));
        events.get((int) event).pending = record;
        s.queue.add(record);
    }

    @Override
    public synchronized boolean eventQuery(final long event) {
        step();
        final Event e = events.get((int) event);
        if (e.failed) {
            throw new CudaException("cudaEventQuery (an asynchronous copy failed)", cudaError.cudaErrorLaunchFailure);
        }
        return lying || e.pending == null;
    }

    @Override
    public synchronized void eventSynchronize(final long event) {
        final Event e = events.get((int) event);
        while (e.pending != null) {
            runHead(e.pending.stream);
        }
        if (e.failed) {
            throw new CudaException("cudaEventSynchronize", cudaError.cudaErrorLaunchFailure);
        }
    }

    @Override
    public synchronized void eventDestroy(final long event) {
        events.get((int) event).destroyed = true;
    }

    @Override
    public synchronized void copyAsync(
            final long to, final long from, final long bytes, final CopyKind kind, final long stream) {
        final Stream s = streams.get((int) stream);
        copiesQueued++;
        if (copiesQueued == failQueuedCopy) {
            throw new CudaException("cudaMemcpyAsync", cudaError.cudaErrorInvalidValue);
        }
        s.throwIfFailed("cudaMemcpyAsync");
        final Op copy = new Op(s, to, from, bytes, -1, region(to, bytes), region(from, bytes));
        copy.failing = copiesQueued == failRunningCopy;
        s.queue.add(copy);
        step();
    }

    @Override
    public synchronized void memsetAsync(final long address, final int value, final long bytes, final long stream) {
        final Stream s = streams.get((int) stream);
        s.queue.add(new Op(s, address, 0, bytes, value, region(address, bytes), null));
    }

    /** Which devices reach each other's memory (all, unless told otherwise). */
    synchronized FakeCuda peerAccess(final BiPredicate<Integer, Integer> reaches) {
        peerAccess = reaches;
        return this;
    }

    synchronized int peerQueries() {
        return peerQueries;
    }

    @Override
    public synchronized boolean canAccessPeer(final int device, final int peer) {
        peerQueries++;
        return peerAccess.test(device, peer);
    }

    @Override
    public synchronized PointerAttributes pointerAttributes(final long address) {
        final Region region = allocationAt(address);
        return region == null
                ? PointerAttributes.unknown()
                : new PointerAttributes(
                        region.kind,
                        region.device,
                        region.base,
                        region.bytes,
                        region.bufferId,
                        region.ipcCapable,
                        region.fromPool);
    }

    @Override
    public synchronized long bufferId(final long address) {
        final Region region = allocationAt(address);
        return region == null ? 0 : region.bufferId;
    }

    /** The live allocation (not a mapping) covering {@code address}, or null: what the driver's pointer queries see. */
    private Region allocationAt(final long address) {
        final Map.Entry<Long, Region> entry = regions.floorEntry(address);
        if (entry == null || entry.getValue().target != null || address >= entry.getKey() + entry.getValue().bytes) {
            return null;
        }
        return entry.getValue();
    }

    /** Runs a random few queued operations of random streams: how far the GPU got meanwhile. */
    private void step() {
        final int moves = random.nextInt(3);
        for (int i = 0; i < moves; i++) {
            final Stream s = streams.get(random.nextInt(streams.size()));
            if (!s.queue.isEmpty()) {
                runHead(s);
            }
        }
    }

    private void runHead(final Stream s) {
        final Op op = s.queue.poll();
        if (op.event != null) {
            if (op.event.pending == op) {
                op.event.pending = null;
                op.event.failed = s.failed;
            }
            return;
        }
        if (s.failed) {
            return;
        }
        if (op.failing) {
            s.failed = true;
            return;
        }
        checkHazards(op);
        final long to = physical(op.to, op.bytes, op.toString());
        if (op.value >= 0) {
            UnsafeAccess.UNSAFE.setMemory(to, op.bytes, (byte) op.value);
        } else {
            UnsafeAccess.UNSAFE.copyMemory(physical(op.from, op.bytes, op.toString()), to, op.bytes);
        }
    }

    /** Another stream's earlier-queued operation that has not run yet must not overlap this one in conflict. */
    private void checkHazards(final Op op) {
        for (final Stream other : streams) {
            if (other == op.stream) {
                continue;
            }
            for (final Op pending : other.queue) {
                if (pending.event != null || pending.serial > op.serial) {
                    continue;
                }
                if (pending.writes(op.toPhysical, op.bytes)
                        || (op.fromPhysical != 0 && pending.writes(op.fromPhysical, op.bytes))) {
                    violations.add(op + " ran before the earlier " + pending + " it conflicts with");
                } else if (pending.reads(op.toPhysical, op.bytes)) {
                    violations.add(op + " overwrote bytes the earlier " + pending + " has still to read");
                }
            }
        }
    }

    private Region region(final long address, final long bytes) {
        final Map.Entry<Long, Region> entry = regions.floorEntry(address);
        if (entry == null || address + bytes > entry.getKey() + entry.getValue().bytes) {
            violations.add(
                    bytes + " bytes at 0x" + Long.toHexString(address) + " lie outside every allocation and mapping");
            throw new CudaException("cudaMemcpyAsync", cudaError.cudaErrorInvalidValue);
        }
        return entry.getValue();
    }

    private long physical(final long address, final long bytes, final String what) {
        final Region region = region(address, bytes);
        final Region memory = region.target != null ? region.target : region;
        if (!regions.containsKey(memory.base) || memory.memory == null) {
            violations.add(what + " reached freed memory");
            throw new CudaException(what, cudaError.cudaErrorIllegalAddress);
        }
        return memory.base + (address - region.base);
    }

    private long serials;

    private final class Op {
        final long serial = ++serials;
        final Stream stream;
        final long to;
        final long from;
        final long bytes;
        final int value;
        final Region toRegion;
        final Region fromRegion;
        final long toPhysical;
        final long fromPhysical;
        final Event event;
        boolean failing;

        Op(
                final Stream stream,
                final long to,
                final long from,
                final long bytes,
                final int value,
                final Region toRegion,
                final Region fromRegion) {
            this.stream = stream;
            this.to = to;
            this.from = from;
            this.bytes = bytes;
            this.value = value;
            this.toRegion = toRegion;
            this.fromRegion = fromRegion;
            this.toPhysical = physicalOf(toRegion, to);
            this.fromPhysical = fromRegion == null ? 0 : physicalOf(fromRegion, from);
            this.event = null;
        }

        Op(final Stream stream, final Event event) {
            this.stream = stream;
            this.event = event;
            this.to = 0;
            this.from = 0;
            this.bytes = 0;
            this.value = 0;
            this.toRegion = null;
            this.fromRegion = null;
            this.toPhysical = 0;
            this.fromPhysical = 0;
        }

        boolean writes(final long physical, final long length) {
            return event == null && overlaps(toPhysical, physical, length);
        }

        boolean reads(final long physical, final long length) {
            return event == null && fromPhysical != 0 && overlaps(fromPhysical, physical, length);
        }

        boolean touches(final long physical, final long length) {
            return writes(physical, length) || reads(physical, length);
        }

        boolean through(final Region mapping) {
            return event == null && (toRegion == mapping || fromRegion == mapping);
        }

        private boolean overlaps(final long start, final long other, final long length) {
            return start < other + length && other < start + bytes;
        }

        @Override
        public String toString() {
            return event != null
                    ? "event record on stream " + stream.id
                    : (value >= 0 ? "memset" : "copy") + " #" + serial + " of " + bytes + " bytes on stream "
                            + stream.id;
        }
    }

    private static long physicalOf(final Region region, final long address) {
        final Region memory = region.target != null ? region.target : region;
        return memory.base + (address - region.base);
    }

    private static final class Stream {
        final int id;
        final ArrayDeque<Op> queue = new ArrayDeque<>();
        boolean failed;
        boolean destroyed;

        Stream(final int id) {
            this.id = id;
        }

        void throwIfFailed(final String call) {
            if (failed) {
                throw new CudaException(call, cudaError.cudaErrorLaunchFailure);
            }
        }
    }

    private static final class Event {
        Op pending;
        boolean failed;
        boolean destroyed;
    }

    private static final class Region {
        final long base;
        final long bytes;
        final int device;
        final ByteBuffer memory;
        final Region target;
        long handle;
        int mappedBy;
        PointerAttributes.Kind kind = PointerAttributes.Kind.DEVICE;
        long bufferId;
        boolean ipcCapable;
        boolean fromPool;

        Region(final long base, final long bytes, final int device, final ByteBuffer memory, final Region target) {
            this.base = base;
            this.bytes = bytes;
            this.device = device;
            this.memory = memory;
            this.target = target;
        }

        @Override
        public String toString() {
            return (target != null ? "mapping of " + target : "allocation of " + bytes + " bytes on device " + device)
                    + " at 0x" + Long.toHexString(base);
        }
    }
}
