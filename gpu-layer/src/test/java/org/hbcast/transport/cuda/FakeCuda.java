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
 *
 * <p>It has a topology: {@code gpus} physical GPUs, each with its own UUID, peer access present or
 * absent per pair ({@link #peerAccess}), and per process a view ({@link #process}) that numbers the
 * GPUs as that process's {@code CUDA_VISIBLE_DEVICES} would, so node rank 1's device 0 may be node rank
 * 2's device 1. Used directly, the fake is a process that sees every GPU in order. A device-to-device
 * copy that touches another GPU's memory without peer access between the two is recorded, and so is
 * a copy through a stale mapping (its allocation freed, even if a new one took the same address:
 * {@link #reuseFreedAddresses}); opening another GPU's handle without peer access fails, as
 * {@code cudaIpcOpenMemHandle} does.
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
    private final int gpus;
    private boolean reuseAddresses;
    private final Map<Long, ArrayDeque<ByteBuffer>> freedMemory = new HashMap<>();

    FakeCuda(final long seed) {
        this(seed, 1);
    }

    /** A fake with {@code gpus} physical GPUs, every pair reaching each other unless told otherwise. */
    FakeCuda(final long seed, final int gpus) {
        if (gpus < 1) {
            throw new IllegalArgumentException("a fake needs at least one GPU: " + gpus);
        }
        this.random = new Random(seed);
        this.gpus = gpus;
    }

    /** Physical GPUs. */
    int gpus() {
        return gpus;
    }

    /**
     * The CUDA of one process whose {@code CUDA_VISIBLE_DEVICES} lists physical GPUs {@code visible} in
     * this order: its device {@code i} is physical GPU {@code visible[i]}.
     */
    CudaCalls process(final int... visible) {
        return view(visible);
    }

    /** As {@link #process}, with the copy count a test reads ({@link #copiesOf}). */
    private ProcessView view(final int... visible) {
        for (final int gpu : visible) {
            if (gpu < 0 || gpu >= gpus) {
                throw new IllegalArgumentException("no physical GPU " + gpu + " among " + gpus);
            }
        }
        return new ProcessView(visible.clone());
    }

    /** Copies queued so far by a process made by {@link #process}. */
    static long copiesOf(final CudaCalls process) {
        return ((ProcessView) process).copies();
    }

    /** A freed allocation's address is handed out again to the next allocation of the same size, as CUDA may. */
    synchronized FakeCuda reuseFreedAddresses() {
        reuseAddresses = true;
        return this;
    }

    /** The physical GPU a device address (an allocation or a mapping) lies on, or -1 for host memory. */
    synchronized int gpuOf(final long address) {
        final Region region = region(address, 1);
        return (region.target != null ? region.target : region).device;
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
            live += region.target == null && !region.external ? 1 : 0;
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
        checkGpu(device);
        final ArrayDeque<ByteBuffer> freed = reuseAddresses ? freedMemory.get(bytes) : null;
        final ByteBuffer memory =
                freed != null && !freed.isEmpty() ? freed.poll() : ByteBuffer.allocateDirect((int) bytes);
        final Region region = new Region(BufferUtil.address(memory), bytes, device, memory, null, false);
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
        if (reuseAddresses) {
            freedMemory.computeIfAbsent(region.bytes, b -> new ArrayDeque<>()).add(region.memory);
        }
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
        checkGpu(device);
        if (target.device != device && !peerAccess.test(device, target.device)) {
            // cudaIpcMemLazyEnablePeerAccess cannot enable what the hardware lacks.
            throw new CudaException("cudaIpcOpenMemHandle", cudaError.cudaErrorPeerAccessUnsupported);
        }
        final Region mapping = new Region(nextMapping, target.bytes, device, null, target, false);
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
        checkGpu(device);
        streams.add(new Stream(streams.size(), device));
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
        checkReach(s, copy.toRegion, copy);
        checkReach(s, copy.fromRegion, copy);
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
        checkGpu(device);
        checkGpu(peer);
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

    @Override
    public synchronized byte[] deviceUuid(final int device) {
        checkGpu(device);
        final byte[] uuid = new byte[16];
        // GPUs differ in the first bytes, as real (random) UUIDs do: explain prints only those.
        ByteBuffer.wrap(uuid).putInt(0x6670_0000 + device).putInt(0x7567_6675).putLong(device);
        return uuid;
    }

    @Override
    public int deviceCount() {
        return gpus;
    }

    @Override
    public synchronized void hostRegister(final long address, final long bytes) {
        final Map.Entry<Long, Region> below = regions.floorEntry(address + bytes - 1);
        if (below != null && below.getKey() + below.getValue().bytes > address) {
            throw new CudaException("cudaHostRegister", cudaError.cudaErrorHostMemoryAlreadyRegistered);
        }
        regions.put(address, new Region(address, bytes, -1, null, null, true));
    }

    @Override
    public synchronized void hostUnregister(final long address) {
        final Region region = regions.get(address);
        if (region == null || !region.external) {
            throw new CudaException("cudaHostUnregister", cudaError.cudaErrorHostMemoryNotRegistered);
        }
        for (final Stream stream : streams) {
            for (final Op op : stream.queue) {
                if (op.toRegion == region || op.fromRegion == region) {
                    violations.add("unregistered " + region + " under a queued " + op);
                }
            }
        }
        regions.remove(address);
    }

    private void checkGpu(final int device) {
        if (device < -1 || device >= gpus) {
            throw new CudaException("physical GPU " + device + " of " + gpus, cudaError.cudaErrorInvalidDevice);
        }
    }

    /** A stream's copy reaches memory of its own GPU, host memory, or a peer GPU with peer access. */
    private void checkReach(final Stream stream, final Region region, final Op op) {
        final int gpu = (region.target != null ? region.target : region).device;
        if (gpu >= 0 && gpu != stream.gpu && !peerAccess.test(stream.gpu, gpu)) {
            violations.add(op + " on GPU " + stream.gpu + " touched GPU " + gpu + "'s memory without peer access");
        }
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
        if (memory.external && regions.get(memory.base) == memory) {
            return address;
        }
        if (regions.get(memory.base) != memory || memory.memory == null) {
            // Identity, not the address: a new allocation at a freed one's address is not what a stale mapping names.
            violations.add(what + " reached freed memory" + (region.target != null ? " through a stale mapping" : ""));
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
        final int gpu;
        final ArrayDeque<Op> queue = new ArrayDeque<>();
        boolean failed;
        boolean destroyed;

        Stream(final int id, final int gpu) {
            this.id = id;
            this.gpu = gpu;
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
        /** Host memory of someone else's (a shared-memory mapping), pinned by hostRegister. */
        final boolean external;

        long handle;
        int mappedBy;
        PointerAttributes.Kind kind = PointerAttributes.Kind.DEVICE;
        long bufferId;
        boolean ipcCapable;
        boolean fromPool;

        Region(
                final long base,
                final long bytes,
                final int device,
                final ByteBuffer memory,
                final Region target,
                final boolean external) {
            this.external = external;
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

    /** One process's CUDA: its device indices name the physical GPUs its visible list gives, in order. */
    private final class ProcessView implements CudaCalls {
        private final int[] visible;
        private long copies;

        ProcessView(final int[] visible) {
            this.visible = visible;
        }

        private int gpu(final int device) {
            if (device < 0 || device >= visible.length) {
                throw new CudaException("device " + device + " of " + visible.length, cudaError.cudaErrorInvalidDevice);
            }
            return visible[device];
        }

        @Override
        public long malloc(final int device, final long bytes) {
            return FakeCuda.this.malloc(gpu(device), bytes);
        }

        @Override
        public void free(final int device, final long address) {
            FakeCuda.this.free(gpu(device), address);
        }

        @Override
        public byte[] ipcGetHandle(final int device, final long address) {
            return FakeCuda.this.ipcGetHandle(gpu(device), address);
        }

        @Override
        public long ipcOpen(final int device, final byte[] record, final int offset) {
            return FakeCuda.this.ipcOpen(gpu(device), record, offset);
        }

        @Override
        public void ipcClose(final int device, final long address) {
            FakeCuda.this.ipcClose(gpu(device), address);
        }

        @Override
        public long streamCreate(final int device) {
            return FakeCuda.this.streamCreate(gpu(device));
        }

        @Override
        public void streamSynchronize(final long stream) {
            FakeCuda.this.streamSynchronize(stream);
        }

        @Override
        public void streamDestroy(final long stream) {
            FakeCuda.this.streamDestroy(stream);
        }

        @Override
        public long eventCreate(final int device) {
            return FakeCuda.this.eventCreate(gpu(device));
        }

        @Override
        public void eventRecord(final long event, final long stream) {
            FakeCuda.this.eventRecord(event, stream);
        }

        @Override
        public boolean eventQuery(final long event) {
            return FakeCuda.this.eventQuery(event);
        }

        @Override
        public void eventSynchronize(final long event) {
            FakeCuda.this.eventSynchronize(event);
        }

        @Override
        public void eventDestroy(final long event) {
            FakeCuda.this.eventDestroy(event);
        }

        @Override
        public void copyAsync(
                final long to, final long from, final long bytes, final CopyKind kind, final long stream) {
            copies++;
            FakeCuda.this.copyAsync(to, from, bytes, kind, stream);
        }

        /** Copies this process has queued. */
        long copies() {
            return copies;
        }

        @Override
        public void memsetAsync(final long address, final int value, final long bytes, final long stream) {
            FakeCuda.this.memsetAsync(address, value, bytes, stream);
        }

        @Override
        public boolean canAccessPeer(final int device, final int peer) {
            return FakeCuda.this.canAccessPeer(gpu(device), gpu(peer));
        }

        @Override
        public PointerAttributes pointerAttributes(final long address) {
            final PointerAttributes seen = FakeCuda.this.pointerAttributes(address);
            // CUDA names the device by this process's numbering; a GPU it cannot see has none.
            int device = -1;
            for (int i = 0; i < visible.length; i++) {
                if (visible[i] == seen.device()) {
                    device = i;
                }
            }
            return seen.device() < 0
                    ? seen
                    : new PointerAttributes(
                            seen.kind(),
                            device,
                            seen.rangeBase(),
                            seen.rangeBytes(),
                            seen.bufferId(),
                            seen.legacyIpcCapable(),
                            seen.fromPool());
        }

        @Override
        public long bufferId(final long address) {
            return FakeCuda.this.bufferId(address);
        }

        @Override
        public byte[] deviceUuid(final int device) {
            return FakeCuda.this.deviceUuid(gpu(device));
        }

        @Override
        public int deviceCount() {
            return visible.length;
        }

        @Override
        public void hostRegister(final long address, final long bytes) {
            FakeCuda.this.hostRegister(address, bytes);
        }

        @Override
        public void hostUnregister(final long address) {
            FakeCuda.this.hostUnregister(address);
        }

        @Override
        public String toString() {
            return "a process of " + FakeCuda.this + " seeing GPUs " + java.util.Arrays.toString(visible);
        }
    }
}
