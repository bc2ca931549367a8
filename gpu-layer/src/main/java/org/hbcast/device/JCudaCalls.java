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
import jcuda.runtime.cudaDeviceProp;
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

    /** The per-call allocation check's queried address and answer, one set per thread: it allocates nothing. */
    private static final ThreadLocal<AttributeQuery> QUERIES = ThreadLocal.withInitial(AttributeQuery::new);

    /** A reusable {@code cuPointerGetAttribute} of one 8-byte attribute. */
    private static final class AttributeQuery {
        final CUdeviceptr at = new CUdeviceptr();
        final long[] value = new long[1];
        final Pointer to = Pointer.to(value);
    }

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
        final int type = intAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, 0);
        if (type == 0) {
            // CUDA_ERROR_INVALID_VALUE: an address no allocation of CUDA's covers.
            return PointerAttributes.unknown();
        }
        final boolean managed = intAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED, 0) != 0;
        final PointerAttributes.Kind kind = managed
                ? PointerAttributes.Kind.MANAGED
                : type == CUmemorytype.CU_MEMORYTYPE_DEVICE
                        ? PointerAttributes.Kind.DEVICE
                        : type == CUmemorytype.CU_MEMORYTYPE_HOST
                                ? PointerAttributes.Kind.HOST
                                : PointerAttributes.Kind.UNKNOWN;
        final int device = kind == PointerAttributes.Kind.DEVICE || kind == PointerAttributes.Kind.MANAGED
                ? intAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, -1)
                : -1;
        final CUdeviceptr base = new CUdeviceptr();
        final long[] size = new long[1];
        final boolean ranged = driverCall(() -> JCudaDriver.cuMemGetAddressRange(base, size, at));
        final boolean ipc =
                intAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, 0) != 0;
        return new PointerAttributes(
                kind,
                device,
                ranged ? DevicePointer.addressOf(base) : 0,
                ranged ? size[0] : 0,
                longAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_BUFFER_ID),
                ipc,
                longAttribute(at, CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE) != 0);
    }

    @Override
    public long bufferId(final long address) {
        driver();
        final AttributeQuery q = QUERIES.get();
        q.value[0] = 0;
        DevicePointer.place(q.at, address);
        try {
            return JCudaDriver.cuPointerGetAttribute(q.to, CUpointer_attribute.CU_POINTER_ATTRIBUTE_BUFFER_ID, q.at)
                            == CUresult.CUDA_SUCCESS
                    ? q.value[0]
                    : 0;
        } catch (final jcuda.CudaException ex) {
            // The program enabled JCuda's exceptions: an address CUDA does not know.
            return 0;
        }
    }

    private static int intAttribute(final CUdeviceptr at, final int attribute, final int otherwise) {
        final int[] value = new int[1];
        return driverCall(() -> JCudaDriver.cuPointerGetAttribute(Pointer.to(value), attribute, at))
                ? value[0]
                : otherwise;
    }

    /** An 8-byte attribute, 0 where CUDA gives none. */
    private static long longAttribute(final CUdeviceptr at, final int attribute) {
        final long[] value = new long[1];
        return driverCall(() -> JCudaDriver.cuPointerGetAttribute(Pointer.to(value), attribute, at)) ? value[0] : 0;
    }

    /**
     * Whether a driver call succeeded, whether or not the program turned JCuda's exceptions on
     * (hbcast leaves that setting to the program).
     */
    private static boolean driverCall(final java.util.function.IntSupplier call) {
        try {
            return call.getAsInt() == CUresult.CUDA_SUCCESS;
        } catch (final jcuda.CudaException ex) {
            return false;
        }
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
                if (!driverCall(() -> JCudaDriver.cuInit(0))) {
                    throw new CudaException("cuInit failed: no usable CUDA driver");
                }
                driverReady = true;
            }
        }
    }

    @Override
    public byte[] deviceUuid(final int device) {
        final cudaDeviceProp properties = new cudaDeviceProp();
        CudaException.check(
                JCuda.cudaGetDeviceProperties(properties, device), "cudaGetDeviceProperties(" + device + ")");
        if (properties.uuid == null || properties.uuid.bytes == null || properties.uuid.bytes.length != 16) {
            throw new IllegalStateException("CUDA device " + device + " reported no 16-byte UUID");
        }
        return properties.uuid.bytes.clone();
    }

    @Override
    public void hostRegister(final long address, final long bytes) {
        CudaException.check(
                JCuda.cudaHostRegister(new DevicePointer(address), bytes, JCuda.cudaHostRegisterPortable),
                "cudaHostRegister(" + bytes + " bytes)");
    }

    @Override
    public void hostUnregister(final long address) {
        CudaException.check(JCuda.cudaHostUnregister(new DevicePointer(address)), "cudaHostUnregister");
    }

    @Override
    public int deviceCount() {
        final int[] count = new int[1];
        CudaException.check(JCuda.cudaGetDeviceCount(count), "cudaGetDeviceCount");
        return count[0];
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
