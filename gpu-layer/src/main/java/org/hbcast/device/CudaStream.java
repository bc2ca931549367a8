package org.hbcast.device;

import jcuda.runtime.JCuda;
import jcuda.runtime.cudaStream_t;

/**
 * A non-blocking CUDA stream, created once. Both links of a ring member queue their copies on one
 * stream, so that an event recorded after a receive also covers the forward that read the same slot.
 */
public final class CudaStream implements AutoCloseable {
    private final int device;
    private final cudaStream_t stream = new cudaStream_t();
    private boolean closed;

    /** Creates a stream on {@code device}. */
    public CudaStream(final int device) {
        this.device = device;
        CudaContext.use(device);
        CudaException.check(
                JCuda.cudaStreamCreateWithFlags(stream, JCuda.cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    }

    /** The JCuda stream. */
    public cudaStream_t stream() {
        return stream;
    }

    /** The device the stream belongs to. */
    public int device() {
        return device;
    }

    /** Waits until everything queued so far has completed. */
    public void synchronize() {
        CudaException.check(JCuda.cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    }

    /** Waits for the stream, then destroys it. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            CudaContext.use(device);
            JCuda.cudaStreamSynchronize(stream);
            CudaException.check(JCuda.cudaStreamDestroy(stream), "cudaStreamDestroy");
        }
    }
}
