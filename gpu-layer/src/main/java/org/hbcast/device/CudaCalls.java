package org.hbcast.device;

/**
 * The CUDA runtime calls the library's device transports make (the ring's link ends, the leaders'
 * staging, the IPC mappings, the events), narrow enough that a test can put an in-process fake in
 * place of the GPU. {@link JCudaCalls} is the production implementation.
 *
 * <p>Streams and events are opaque {@code long} handles so that the hot path (a copy and an event per
 * chunk) allocates nothing. Every method throws {@link CudaException} on a CUDA error; the
 * asynchronous ones ({@link #copyAsync}, {@link #memsetAsync}, {@link #eventRecord}) only queue work,
 * whose failure shows later in {@link #eventQuery} or a synchronize.
 */
public interface CudaCalls {
    /** Direction of a copy. */
    enum CopyKind {
        /** Device (or IPC-mapped peer device) memory to device memory. */
        DEVICE_TO_DEVICE,
        /** Device memory to pinned host memory. */
        DEVICE_TO_HOST,
        /** Pinned host memory to device memory. */
        HOST_TO_DEVICE
    }

    /** Allocates {@code bytes} (at least 1) on {@code device}; returns the device address. */
    long malloc(int device, long bytes);

    /** Frees memory returned by {@link #malloc}. */
    void free(int device, long address);

    /** The 64-byte IPC handle of the allocation at {@code address}. */
    byte[] ipcGetHandle(int device, long address);

    /**
     * Maps a peer's allocation, named by the 64-byte IPC handle at {@code offset} of {@code record},
     * into this process on {@code device}; returns its address.
     */
    long ipcOpen(int device, byte[] record, int offset);

    /** Unmaps an address returned by {@link #ipcOpen}. */
    void ipcClose(int device, long address);

    /** Creates a non-blocking stream on {@code device}. */
    long streamCreate(int device);

    /** Waits until everything queued on {@code stream} has completed. */
    void streamSynchronize(long stream);

    /** Destroys {@code stream} (after waiting for it). */
    void streamDestroy(long stream);

    /** Creates a timing-free event on {@code device}. */
    long eventCreate(int device);

    /** Records {@code event} after everything queued on {@code stream} so far. */
    void eventRecord(long event, long stream);

    /** True when {@code event} has completed, false while it has not; never blocks. */
    boolean eventQuery(long event);

    /** Waits until {@code event} has completed. */
    void eventSynchronize(long event);

    /** Destroys {@code event}. */
    void eventDestroy(long event);

    /** Queues a copy of {@code bytes} from {@code from} to {@code to} on {@code stream}. Never allocates. */
    void copyAsync(long to, long from, long bytes, CopyKind kind, long stream);

    /** Queues setting {@code bytes} at {@code address} to {@code value} on {@code stream}. */
    void memsetAsync(long address, int value, long bytes, long stream);

    /** True when {@code device} can access memory on {@code peer} ({@code cudaDeviceCanAccessPeer}). */
    boolean canAccessPeer(int device, int peer);

    /**
     * What CUDA says about the memory at {@code address}: its kind, device, allocation range and id,
     * and whether it can be exported for IPC. {@link PointerAttributes#unknown()} where CUDA knows no
     * such memory (pageable host memory, freed memory); never throws for that.
     */
    PointerAttributes pointerAttributes(long address);

    /**
     * The driver's identifier of the allocation holding {@code address}
     * ({@code CU_POINTER_ATTRIBUTE_BUFFER_ID}), 0 where CUDA knows none: how a caller learns, once per
     * call and without allocating, that memory it was given was freed or replaced.
     */
    long bufferId(long address);

    /**
     * The 16-byte UUID of the physical GPU this process sees as {@code device}. Device indices differ
     * between processes whose {@code CUDA_VISIBLE_DEVICES} differ; the UUID does not, so ranks that
     * share a GPU find each other by it.
     */
    byte[] deviceUuid(int device);

    /**
     * Pins {@code bytes} of host memory at {@code address} (a shared-memory mapping) so that
     * asynchronous copies reach it by DMA ({@code cudaHostRegister}, portable to every device).
     */
    void hostRegister(long address, long bytes);

    /** Unpins memory pinned by {@link #hostRegister} ({@code cudaHostUnregister}). */
    void hostUnregister(long address);

    /** Devices this process sees ({@code cudaGetDeviceCount}): indices {@code 0 .. count - 1}. */
    int deviceCount();
}
