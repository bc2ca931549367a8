package org.hbcast.device;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import jcuda.runtime.JCuda;

/**
 * Page-locked host memory from {@code cudaHostAlloc}, seen from Java as a direct {@link ByteBuffer}:
 * where node leaders stage device chunks for the network, since copies between a device and pinned
 * memory run asynchronously at full PCIe speed and MPI reads and writes a direct buffer in place.
 */
public final class PinnedBuffer implements AutoCloseable {
    private final DevicePointer pointer;
    private final ByteBuffer buffer;
    private final int bytes;
    private boolean closed;

    private PinnedBuffer(final DevicePointer pointer, final int bytes) {
        this.pointer = pointer;
        this.bytes = bytes;
        this.buffer = pointer.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder());
    }

    /** Allocates {@code bytes} (at least 1) of pinned memory, portable to every device. */
    public static PinnedBuffer allocate(final int bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("pinned buffer size must be positive: " + bytes);
        }
        final CudaDevices devices = CudaDevices.get();
        if (!devices.available()) {
            throw new CudaException("no CUDA device: " + devices.unavailableReason());
        }
        final DevicePointer pointer = new DevicePointer();
        CudaException.check(
                JCuda.cudaHostAlloc(pointer, bytes, JCuda.cudaHostAllocPortable), "cudaHostAlloc(" + bytes + " bytes)");
        return new PinnedBuffer(pointer, bytes);
    }

    /** Host address of the memory. */
    public long address() {
        return pointer.address();
    }

    /** The memory as a direct buffer (position 0, limit = capacity = size). */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** Size in bytes. */
    public int bytes() {
        return bytes;
    }

    /** Frees the memory ({@code cudaFreeHost}); the buffer must not be used afterwards. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            CudaException.check(JCuda.cudaFreeHost(pointer), "cudaFreeHost");
        }
    }
}
