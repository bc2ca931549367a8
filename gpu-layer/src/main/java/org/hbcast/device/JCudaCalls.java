package org.hbcast.device;

import java.io.IOException;
import java.util.Arrays;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUmemorytype;
import jcuda.driver.CUpointer_attribute;
import jcuda.driver.CUresult;
import jcuda.driver.JCudaDriver;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaError;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaIpcMemHandle;
import jcuda.runtime.cudaMemcpyKind;
import jcuda.runtime.cudaStream_t;

/**
 * {@link CudaCalls} over JCuda: the production implementation, one per process ({@link #INSTANCE}).
 *
 * <p>JCuda names streams and events by objects; the interface by {@code long} handles. Handles index
 * a table grown under a lock and published copy-on-write, so a lookup on the hot path is one array
 * read and never allocates. Pointers are {@link DevicePointer}s moved per call, one pair per thread.
 */
public final class JCudaCalls implements CudaCalls {
    /** The process's instance. */
    public static final JCudaCalls INSTANCE = new JCudaCalls();

    private static final ThreadLocal<DevicePointer[]> POINTERS =
            ThreadLocal.withInitial(() -> new DevicePointer[] {new DevicePointer(), new DevicePointer()});
    /** A direct call maps and unmaps its neighbour's buffer: one handle per thread, reused. */
    private static final ThreadLocal<cudaIpcMemHandle> HANDLES = ThreadLocal.withInitial(cudaIpcMemHandle::new);

    /** A call's per-call allocation check: the queried address and the answer's cell, one pair per thread. */
    private static final ThreadLocal<Object[]> ATTRIBUTE_CELLS = ThreadLocal.withInitial(() -> {
        final long[] cell = new long[1];
        return new Object[] {new CUdeviceptr(), cell, Pointer.to(cell)};
    });

    private final Object lock = new Object();
    private volatile boolean driverReady;
    private volatile cudaStream_t[] streams = new cudaStream_t[0];
    private volatile cudaEvent_t[] events = new cudaEvent_t[0];
    private volatile int[] eventDevices = new int[0];
    private volatile int[] streamDevices = new int[0];

    private JCudaCalls() {}

    @Override
    public long malloc(final int device, final long bytes) {
        CudaContext.use(device);
        final DevicePointer pointer = new DevicePointer();
        CudaException.check(
                JCuda.cudaMalloc(pointer, Math.max(bytes, 1)),
                "cudaMalloc(" + bytes + " bytes on device " + device + ")");
        return pointer.address();
    }

    @Override
    public void free(final int device, final long address) {
        CudaContext.use(device);
        CudaException.check(JCuda.cudaFree(new DevicePointer(address)), "cudaFree");
    }

    @Override
    public byte[] ipcGetHandle(final int device, final long address) {
        CudaContext.use(device);
        final cudaIpcMemHandle handle = new cudaIpcMemHandle();
        CudaException.check(JCuda.cudaIpcGetMemHandle(handle, new DevicePointer(address)), "cudaIpcGetMemHandle");
        return IpcHandles.bytesOf(handle);
    }

    @Override
    public long ipcOpen(final int device, final byte[] record, final int offset) {
        CudaContext.use(device);
        final DevicePointer mapped = POINTERS.get()[0];
        final int rc = JCuda.cudaIpcOpenMemHandle(
                mapped, IpcHandles.fill(HANDLES.get(), record, offset), JCuda.cudaIpcMemLazyEnablePeerAccess);
        if (rc != cudaError.cudaSuccess) {
            throw new CudaException("cudaIpcOpenMemHandle on device " + device, rc);
        }
        return mapped.address();
    }

    @Override
    public void ipcClose(final int device, final long address) {
        CudaContext.use(device);
        final int rc = JCuda.cudaIpcCloseMemHandle(POINTERS.get()[0].moveTo(address));
        if (rc != cudaError.cudaSuccess) {
            throw new CudaException("cudaIpcCloseMemHandle", rc);
        }
    }

    @Override
    public long streamCreate(final int device) {
        CudaContext.use(device);
        final cudaStream_t stream = new cudaStream_t();
        CudaException.check(
                JCuda.cudaStreamCreateWithFlags(stream, JCuda.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        synchronized (lock) {
            final int handle = streams.length;
            final cudaStream_t[] grown = Arrays.copyOf(streams, handle + 1);
            grown[handle] = stream;
            final int[] devices = Arrays.copyOf(streamDevices, handle + 1);
            devices[handle] = device;
            streamDevices = devices;
            streams = grown;
            return handle;
        }
    }

    @Override
    public void streamSynchronize(final long stream) {
        CudaException.check(JCuda.cudaStreamSynchronize(stream(stream)), "cudaStreamSynchronize");
    }

    @Override
    public void streamDestroy(final long stream) {
        CudaContext.use(streamDevices[(int) stream]);
        final cudaStream_t s = stream(stream);
        final int waited = JCuda.cudaStreamSynchronize(s);
        CudaException.check(JCuda.cudaStreamDestroy(s), "cudaStreamDestroy");
        streams[(int) stream] = null;
        CudaException.check(waited, "cudaStreamSynchronize before cudaStreamDestroy");
    }

    @Override
    public long eventCreate(final int device) {
        CudaContext.use(device);
        final cudaEvent_t event = new cudaEvent_t();
        CudaException.check(
                JCuda.cudaEventCreateWithFlags(event, JCuda.cudaEventDisableTiming), "cudaEventCreateWithFlags");
        synchronized (lock) {
            final int handle = events.length;
            final cudaEvent_t[] grown = Arrays.copyOf(events, handle + 1);
            grown[handle] = event;
            final int[] devices = Arrays.copyOf(eventDevices, handle + 1);
            devices[handle] = device;
            eventDevices = devices;
            events = grown;
            return handle;
        }
    }

    @Override
    public void eventRecord(final long event, final long stream) {
        CudaException.check(JCuda.cudaEventRecord(event(event), stream(stream)), "cudaEventRecord");
    }

    @Override
    public boolean eventQuery(final long event) {
        final int rc = JCuda.cudaEventQuery(event(event));
        if (rc == cudaError.cudaErrorNotReady) {
            return false;
        }
        CudaException.check(rc, "cudaEventQuery (an asynchronous copy failed)");
        return true;
    }

    @Override
    public void eventSynchronize(final long event) {
        CudaContext.use(eventDevices[(int) event]);
        CudaException.check(JCuda.cudaEventSynchronize(event(event)), "cudaEventSynchronize");
    }

    @Override
    public void eventDestroy(final long event) {
        CudaContext.use(eventDevices[(int) event]);
        CudaException.check(JCuda.cudaEventDestroy(event(event)), "cudaEventDestroy");
        events[(int) event] = null;
    }

    @Override
    public void copyAsync(final long to, final long from, final long bytes, final CopyKind kind, final long stream) {
        final DevicePointer[] pointers = POINTERS.get();
        final int rc = JCuda.cudaMemcpyAsync(
                pointers[0].moveTo(to), pointers[1].moveTo(from), bytes, kindOf(kind), stream(stream));
        if (rc != cudaError.cudaSuccess) {
            // Built only on failure: a chunk's copy must not allocate.
            throw new CudaException("cudaMemcpyAsync " + kind, rc);
        }
    }

    @Override
    public void memsetAsync(final long address, final int value, final long bytes, final long stream) {
        CudaException.check(
                JCuda.cudaMemsetAsync(POINTERS.get()[0].moveTo(address), value, bytes, stream(stream)),
                "cudaMemsetAsync");
    }

    @Override
    public boolean canAccessPeer(final int device, final int peer) {
        final int[] can = new int[1];
        CudaException.check(
                JCuda.cudaDeviceCanAccessPeer(can, device, peer),
                "cudaDeviceCanAccessPeer(" + device + ", " + peer + ")");
        return can[0] != 0;
    }

    @Override
    public PointerAttributes pointerAttributes(final long address) {
        driver();
        final CUdeviceptr at = DevicePointer.place(new CUdeviceptr(), address);
        final int[] type = new int[1];
        if (JCudaDriver.cuPointerGetAttribute(
                        Pointer.to(type), CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, at)
                != CUresult.CUDA_SUCCESS) {
            // CUDA_ERROR_INVALID_VALUE: an address no allocation of CUDA's covers.
            return PointerAttributes.unknown();
        }
        final boolean managed = intAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, 0) != 0;
        final PointerAttributes.Kind kind = managed
                ? PointerAttributes.Kind.MANAGED
                : type[0] == CUmemorytype.CU_MEMORYTYPE_DEVICE
                        ? PointerAttributes.Kind.DEVICE
                        : type[0] == CUmemorytype.CU_MEMORYTYPE_HOST
                                ? PointerAttributes.Kind.HOST
                                : PointerAttributes.Kind.UNKNOWN;
        final int device = kind == PointerAttributes.Kind.DEVICE || kind == PointerAttributes.Kind.MANAGED
                ? intAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, -1)
                : -1;
        final CUdeviceptr base = new CUdeviceptr();
        final long[] size = new long[1];
        final boolean ranged = JCudaDriver.cuMemGetAddressRange(base, size, at) == CUresult.CUDA_SUCCESS;
        final long[] id = new long[1];
        JCudaDriver.cuPointerGetAttribute(Pointer.to(id), CUpointer_attribute.CU_POINTER_ATTRIBUTE_BUFFER_ID, at);
        final boolean ipc =
                intAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, 0) != 0;
        final long[] pool = new long[1];
        final boolean pooled = JCudaDriver.cuPointerGetAttribute(
                                Pointer.to(pool), CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, at)
                        == CUresult.CUDA_SUCCESS
                && pool[0] != 0;
        return new PointerAttributes(
                kind, device, ranged ? DevicePointer.addressOf(base) : 0, ranged ? size[0] : 0, id[0], ipc, pooled);
    }

    @Override
    public long bufferId(final long address) {
        driver();
        final Object[] cells = ATTRIBUTE_CELLS.get();
        final long[] cell = (long[]) cells[1];
        cell[0] = 0;
        final int rc = JCudaDriver.cuPointerGetAttribute(
                (Pointer) cells[2],
                CUpointer_attribute.CU_POINTER_ATTRIBUTE_BUFFER_ID,
                DevicePointer.place((CUdeviceptr) cells[0], address));
        return rc == CUresult.CUDA_SUCCESS ? cell[0] : 0;
    }

    private static int intAttribute(final CUdeviceptr at, final int attribute, final int otherwise) {
        final int[] value = new int[1];
        return JCudaDriver.cuPointerGetAttribute(Pointer.to(value), attribute, at) == CUresult.CUDA_SUCCESS
                ? value[0]
                : otherwise;
    }

    /** The driver API, once: its natives put in place safely, initialized (the runtime API shares it). */
    private void driver() {
        if (driverReady) {
            return;
        }
        synchronized (lock) {
            if (!driverReady) {
                try {
                    JCudaNatives.prepare();
                } catch (final IOException ex) {
                    throw new CudaException(
                            "JCuda natives: " + ex.getMessage(), cudaError.cudaErrorInitializationError);
                }
                JCudaDriver.setExceptionsEnabled(false);
                CudaException.check(JCudaDriver.cuInit(0), "cuInit");
                driverReady = true;
            }
        }
    }

    private static int kindOf(final CopyKind kind) {
        return switch (kind) {
            case DEVICE_TO_DEVICE -> cudaMemcpyKind.cudaMemcpyDeviceToDevice;
            case DEVICE_TO_HOST -> cudaMemcpyKind.cudaMemcpyDeviceToHost;
            case HOST_TO_DEVICE -> cudaMemcpyKind.cudaMemcpyHostToDevice;
        };
    }

    private cudaStream_t stream(final long handle) {
        return streams[(int) handle];
    }

    private cudaEvent_t event(final long handle) {
        return events[(int) handle];
    }
}
