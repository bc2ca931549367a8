package org.hbcast.device;

import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicLong;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaMemcpyKind;

/**
 * Memory on one CUDA device, allocated with {@code cudaMalloc}: its pointer, its length in bytes and
 * its device. This is what {@code HierarchicalBcast}'s device overload broadcasts.
 *
 * <p>Every allocation gets a generation number unique in its process, so that a peer that cached an
 * IPC mapping of it (keyed by {@link #allocationId()}) notices when the memory has been freed and a
 * new buffer happens to start at the same address. The IPC handle is made once, on first use.
 *
 * <p>Memory the program allocated itself is described with {@link #ofUserMemory}: the library
 * broadcasts it and never frees it. Its generation is the driver's id of the allocation
 * ({@code CU_POINTER_ATTRIBUTE_BUFFER_ID}) with bit 62 set ({@link #isUserGeneration}), so peers map
 * it for one call only, never caching the mapping, and have closed it when its owner's call returns;
 * each broadcast asks the driver again: memory freed or replaced since it was described is refused
 * ({@link #userMemoryProblem}).
 *
 * <p>The copy helpers are synchronous and meant for tests and benchmarks (filling a root's buffer,
 * checking a receiver's); the ring copies with its own streams.
 */
public final class DeviceBuffer implements AutoCloseable {
    private static final AtomicLong GENERATIONS = new AtomicLong();
    /** Marks the generations of the program's memory apart from those of the library's own allocations. */
    private static final long USER_GENERATION = 1L << 62;

    private final CudaCalls calls;
    private final DevicePointer pointer;
    private final long bytes;
    private final int device;
    private final long generation;
    /** Null for memory the library allocated; what CUDA said of the program's memory when it was described. */
    private final PointerAttributes userAttributes;
    /** Why the program's memory cannot be broadcast, found when it was described; null when it can. */
    private final String userRefusal;

    private byte[] ipcHandle;
    private boolean closed;
    private boolean freed;
    /** Who maps this buffer in other processes and must close those mappings before it is freed. */
    private final java.util.List<FreeGuard> guards = new java.util.ArrayList<>(1);

    /**
     * Something that keeps IPC mappings of a buffer open in other processes across calls (a GPU
     * group's copiers cache their members' buffers). CUDA leaves freeing memory that another process
     * still maps undefined, so while a buffer has a guard, {@link #close()} only asks it to have the
     * mappings closed; the memory is freed when the last guard {@link #release}s it.
     */
    public interface FreeGuard {
        /** {@code buffer} was closed by its owner: close the peers' mappings, then {@link #release} it. */
        void freeRequested(DeviceBuffer buffer);
    }

    private DeviceBuffer(final CudaCalls calls, final DevicePointer pointer, final long bytes, final int device) {
        this.calls = calls;
        this.pointer = pointer;
        this.bytes = bytes;
        this.device = device;
        this.generation = GENERATIONS.incrementAndGet();
        this.userAttributes = null;
        this.userRefusal = null;
    }

    private DeviceBuffer(
            final CudaCalls calls,
            final long address,
            final long bytes,
            final int device,
            final PointerAttributes attributes,
            final String refusal) {
        this.calls = calls;
        this.pointer = new DevicePointer(address);
        this.bytes = bytes;
        this.device = device;
        // Disjoint from the library's own generations (a counter from 1): the driver's allocation id, high bit set.
        this.generation = USER_GENERATION | attributes.bufferId();
        this.userAttributes = attributes;
        this.userRefusal = refusal;
    }

    /**
     * Device memory the program allocated itself (a JCuda {@code Pointer} or {@code CUdeviceptr} from
     * {@code cudaMalloc}/{@code cuMemAlloc}), {@code bytes} long, on {@code device}. The library never
     * frees it: {@link #close()} only forgets it. Asks CUDA what the memory is now; memory that the
     * node's CUDA IPC ring cannot take (managed, stream-ordered pool, host memory, not the base of its
     * allocation, longer than its allocation, on another device) is described all the same and
     * refused by the broadcast, on every rank, before anything is sent, with {@link #userMemoryProblem}'s
     * message.
     *
     * @throws IllegalArgumentException for a null pointer or a negative length or device
     */
    public static DeviceBuffer ofUserMemory(final Pointer pointer, final long bytes, final int device) {
        if (pointer == null) {
            throw new IllegalArgumentException("pointer is null");
        }
        return ofUserMemory(DevicePointer.addressOf(pointer), bytes, device);
    }

    /** As {@link #ofUserMemory(Pointer, long, int)}, for the device address {@code address}. */
    public static DeviceBuffer ofUserMemory(final long address, final long bytes, final int device) {
        return ofUserMemory(address, bytes, device, JCudaCalls.INSTANCE);
    }

    /** As {@link #ofUserMemory(long, long, int)}, asking {@code calls} (a test's fake GPU) about the memory. */
    public static DeviceBuffer ofUserMemory(
            final long address, final long bytes, final int device, final CudaCalls calls) {
        if (bytes < 0 || device < 0) {
            throw new IllegalArgumentException(
                    "bytes and device must not be negative: " + bytes + " bytes on device " + device);
        }
        if (address == 0) {
            throw new IllegalArgumentException("address is 0 (a null device pointer)");
        }
        PointerAttributes attributes;
        String refusal;
        try {
            attributes = calls.pointerAttributes(address);
            refusal = attributes.refusal(address, bytes, device);
        } catch (final CudaException | LinkageError ex) {
            // No driver or no JCuda: described all the same, so that the broadcast refuses it on every rank.
            attributes = PointerAttributes.unknown();
            refusal = "CUDA cannot describe the memory at 0x" + Long.toHexString(address) + ": " + ex.getMessage();
        }
        return new DeviceBuffer(calls, address, bytes, device, attributes, refusal);
    }

    /**
     * True when {@code generation} is that of memory the program allocated ({@link #ofUserMemory}): a
     * peer that receives it in a descriptor must map it for one call only, never cache the mapping.
     */
    public static boolean isUserGeneration(final long generation) {
        return (generation & USER_GENERATION) != 0;
    }

    /** True for memory the program allocated ({@link #ofUserMemory}), which the library never frees. */
    public boolean isUserMemory() {
        return userAttributes != null;
    }

    /**
     * Why this buffer cannot be broadcast now, or null when it can: for the program's memory, what
     * CUDA said of it when it was described, and whether the same allocation is still there (the
     * driver's id of the allocation at its address, asked once per call without allocating); null for
     * the library's own buffers.
     */
    public String userMemoryProblem() {
        if (userAttributes == null) {
            return null;
        }
        if (userRefusal != null) {
            return userRefusal;
        }
        final long now = calls.bufferId(pointer.address());
        if (now != userAttributes.bufferId()) {
            return "the device memory at 0x" + Long.toHexString(pointer.address()) + " was "
                    + (now == 0 ? "freed" : "freed and allocated again") + " since it was described:"
                    + " describe the new allocation with DeviceBuffer.ofUserMemory";
        }
        return null;
    }

    /**
     * Allocates {@code bytes} on {@code device} (made the calling thread's current device). A zero-byte
     * request allocates one byte, so that every buffer has an address and an IPC handle.
     *
     * @throws CudaException when there is no device or not enough memory
     */
    public static DeviceBuffer allocate(final long bytes, final int device) {
        return allocate(bytes, device, JCudaCalls.INSTANCE);
    }

    /**
     * As {@link #allocate(long, int)}, through {@code calls}: a buffer of an in-process fake serves the
     * transports' protocol tests; the synchronous copy helpers below need the real {@link JCudaCalls}.
     */
    public static DeviceBuffer allocate(final long bytes, final int device, final CudaCalls calls) {
        if (bytes < 0) {
            throw new IllegalArgumentException("bytes must not be negative: " + bytes);
        }
        return new DeviceBuffer(calls, new DevicePointer(calls.malloc(device, bytes)), bytes, device);
    }

    /** The device pointer (base of the allocation). Do not move it. */
    public Pointer pointer() {
        requireOpen();
        return pointer;
    }

    /** The allocation's base address on the device. */
    public long address() {
        requireOpen();
        return pointer.address();
    }

    /** Length in bytes. */
    public long bytes() {
        return bytes;
    }

    /** The CUDA device the memory is on. */
    public int device() {
        return device;
    }

    /** This allocation's generation: unique among the buffers this process has allocated. */
    public long generation() {
        return generation;
    }

    /** Identity of this allocation as peers see it. */
    public AllocationId allocationId() {
        return new AllocationId(ProcessHandle.current().pid(), address(), bytes, generation);
    }

    /** This allocation's 64-byte CUDA IPC handle, made on first call and kept. */
    public byte[] ipcHandle() {
        requireOpen();
        if (ipcHandle == null) {
            ipcHandle = calls.ipcGetHandle(device, pointer.address());
        }
        return ipcHandle;
    }

    /** Copies {@code length} bytes of {@code source} (from index 0) to offset {@code offset} of this buffer. */
    public void copyFromHost(final byte[] source, final long offset, final int length) {
        checkRange(offset, length, source.length);
        CudaContext.use(device);
        CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        completed(
                JCuda.cudaMemcpy(
                        pointer.withByteOffset(offset),
                        Pointer.to(source),
                        length,
                        cudaMemcpyKind.cudaMemcpyHostToDevice),
                "cudaMemcpy host to device");
    }

    /** Copies {@code length} bytes at offset {@code offset} of this buffer to {@code dest} (from index 0). */
    public void copyToHost(final long offset, final byte[] dest, final int length) {
        checkRange(offset, length, dest.length);
        CudaContext.use(device);
        CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        completed(
                JCuda.cudaMemcpy(
                        Pointer.to(dest),
                        pointer.withByteOffset(offset),
                        length,
                        cudaMemcpyKind.cudaMemcpyDeviceToHost),
                "cudaMemcpy device to host");
    }

    /** Copies the remaining bytes of a direct buffer to offset {@code offset} of this buffer. */
    public void copyFromHost(final ByteBuffer source, final long offset) {
        checkRange(offset, source.remaining(), source.remaining());
        CudaContext.use(device);
        CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        completed(
                JCuda.cudaMemcpy(
                        pointer.withByteOffset(offset),
                        Pointer.toBuffer(source),
                        source.remaining(),
                        cudaMemcpyKind.cudaMemcpyHostToDevice),
                "cudaMemcpy host to device");
    }

    /** Copies the first {@code length} bytes of this buffer to the start of {@code dest} (same or peer device). */
    public void copyToDevice(final DeviceBuffer dest, final int length) {
        checkRange(0, length, length);
        dest.checkRange(0, length, length);
        CudaContext.use(device);
        CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        completed(
                JCuda.cudaMemcpy(dest.pointer, pointer, length, cudaMemcpyKind.cudaMemcpyDeviceToDevice),
                "cudaMemcpy device to device");
    }

    /** Sets every byte to {@code value}. */
    public void fill(final int value) {
        requireJCuda();
        CudaContext.use(device);
        CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
        completed(JCuda.cudaMemset(pointer, value, Math.max(bytes, 1)), "cudaMemset");
    }

    /**
     * Makes a helper truly synchronous. {@code cudaMemcpy} from pageable host memory may return before
     * the bytes are on the device, {@code cudaMemset} and device-to-device copies may return before they
     * complete, and all of them run on the legacy default stream, which the library's non-blocking
     * streams do not wait for. So the device is synchronized before (work queued on other streams, e.g.
     * a ring copy into this buffer, has landed) and after (this copy has): a buffer filled here and then
     * broadcast, or read here after a broadcast, holds exactly those bytes. For tests and benchmarks,
     * never the broadcast's own path.
     */
    private static void completed(final int rc, final String call) {
        CudaException.check(rc, call);
        CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    }

    private void checkRange(final long offset, final long length, final long hostLength) {
        requireJCuda();
        if (offset < 0 || length < 0 || length > hostLength || offset + length > bytes) {
            throw new IndexOutOfBoundsException("copy of " + length + " bytes at offset " + offset
                    + " outside a device buffer of " + bytes + " bytes (host side " + hostLength + ")");
        }
    }

    private void requireJCuda() {
        requireOpen();
        if (calls != JCudaCalls.INSTANCE) {
            throw new IllegalStateException("the synchronous helpers need real CUDA, not " + calls);
        }
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("device buffer is closed");
        }
    }

    /** True once closed by its owner (the memory itself may wait for its guards: {@link #isFreed()}). */
    public boolean isClosed() {
        return closed;
    }

    /** True once the memory has been given back to CUDA. */
    public synchronized boolean isFreed() {
        return freed;
    }

    /**
     * From now on {@link #close()} leaves the free to {@code guard} (and any other guard). Idempotent;
     * allocation-free after the first time for the same guard.
     */
    public synchronized void guard(final FreeGuard guard) {
        requireOpen();
        if (userAttributes != null) {
            throw new IllegalStateException(
                    "the program's own device memory cannot be guarded: the library never frees it");
        }
        if (!guards.contains(guard)) {
            guards.add(guard);
        }
    }

    /** True while {@code guard} holds the buffer's free. */
    public synchronized boolean guardedBy(final FreeGuard guard) {
        return guards.contains(guard);
    }

    /**
     * {@code guard} no longer maps the buffer anywhere: once closed and without guards, the memory is
     * freed now. Idempotent.
     */
    public void release(final FreeGuard guard) {
        final boolean freeNow;
        synchronized (this) {
            guards.remove(guard);
            freeNow = closed && guards.isEmpty() && !freed;
            freed |= freeNow;
        }
        if (freeNow) {
            calls.free(device, pointer.address());
        }
    }

    /**
     * Frees the memory ({@code cudaFree}), or, while peers may map it ({@link #guard}), asks each guard
     * to have their mappings closed first and frees it when the last has ({@link #release}). Either
     * way the buffer is unusable from here on. The program's own memory is never freed: closing only
     * forgets it. Idempotent.
     */
    @Override
    public void close() {
        final FreeGuard[] asked;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (userAttributes != null) {
                return;
            }
            if (guards.isEmpty()) {
                freed = true;
                asked = null;
            } else {
                asked = guards.toArray(new FreeGuard[0]);
            }
        }
        if (asked == null) {
            calls.free(device, pointer.address());
            return;
        }
        for (final FreeGuard guard : asked) {
            guard.freeRequested(this);
        }
    }

    @Override
    public String toString() {
        return "DeviceBuffer{" + (userAttributes != null ? "program's memory, " : "") + bytes + " bytes on device "
                + device + ", generation " + generation
                + (closed ? ", closed" : ", 0x" + Long.toHexString(pointer.address())) + '}';
    }
}
