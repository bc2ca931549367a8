package org.hbcast.device;

/**
 * A non-blocking CUDA stream, created once. Both links of a ring member queue their copies on one
 * stream, so that an event recorded after a receive also covers the forward that read the same slot.
 */
public final class CudaStream implements AutoCloseable {
    private final CudaCalls calls;
    private final int device;
    private final long stream;
    private boolean closed;

    /** Creates a stream on {@code device}. */
    public CudaStream(final int device) {
        this(JCudaCalls.INSTANCE, device);
    }

    /** Creates a stream on {@code device} through {@code calls}. */
    public CudaStream(final CudaCalls calls, final int device) {
        this.calls = calls;
        this.device = device;
        this.stream = calls.streamCreate(device);
    }

    /** The stream's handle for {@link CudaCalls}. */
    public long handle() {
        return stream;
    }

    /** The calls the stream was made by. */
    public CudaCalls calls() {
        return calls;
    }

    /** The device the stream belongs to. */
    public int device() {
        return device;
    }

    /** Waits until everything queued so far has completed. */
    public void synchronize() {
        calls.streamSynchronize(stream);
    }

    /** Waits for the stream, then destroys it. Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            calls.streamDestroy(stream);
        }
    }
}
