package org.hbcast.device;

import java.util.Arrays;
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

    private final Object lock = new Object();
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
