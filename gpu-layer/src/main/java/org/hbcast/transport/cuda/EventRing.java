package org.hbcast.transport.cuda;

import jcuda.runtime.JCuda;
import jcuda.runtime.cudaError;
import jcuda.runtime.cudaEvent_t;
import org.hbcast.device.CudaContext;
import org.hbcast.device.CudaException;
import org.hbcast.device.CudaStream;

/**
 * Timing-free CUDA events created once and used round-robin: event {@code i mod n} marks the
 * completion of the copy with sequence number {@code i} (and of everything queued before it on its
 * stream). The user keeps at most {@code n} sequence numbers outstanding, so an event is recorded
 * again only after its previous use was seen complete.
 */
public final class EventRing implements AutoCloseable {
    private final int device;
    private final cudaEvent_t[] events;
    private boolean closed;

    /** Creates {@code count} events on {@code device}. */
    public EventRing(final int device, final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("event count must be positive: " + count);
        }
        this.device = device;
        CudaContext.use(device);
        events = new cudaEvent_t[count];
        for (int i = 0; i < count; i++) {
            events[i] = new cudaEvent_t();
            CudaException.check(
                    JCuda.cudaEventCreateWithFlags(events[i], JCuda.cudaEventDisableTiming),
                    "cudaEventCreateWithFlags");
        }
    }

    /** Records the event of {@code sequence} after everything queued on {@code stream} so far. */
    public void record(final long sequence, final CudaStream stream) {
        CudaException.check(JCuda.cudaEventRecord(events[index(sequence)], stream.stream()), "cudaEventRecord");
    }

    /** True when the event of {@code sequence} has completed; never blocks. */
    public boolean isComplete(final long sequence) {
        final int rc = JCuda.cudaEventQuery(events[index(sequence)]);
        if (rc == cudaError.cudaErrorNotReady) {
            return false;
        }
        CudaException.check(rc, "cudaEventQuery (an asynchronous copy failed)");
        return true;
    }

    /** Number of events. */
    public int size() {
        return events.length;
    }

    private int index(final long sequence) {
        return (int) (sequence % events.length);
    }

    /** Destroys the events (after waiting for each). Idempotent. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            CudaContext.use(device);
            for (final cudaEvent_t event : events) {
                JCuda.cudaEventSynchronize(event);
                JCuda.cudaEventDestroy(event);
            }
        }
    }
}
