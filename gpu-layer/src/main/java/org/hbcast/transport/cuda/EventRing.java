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
            final cudaEvent_t event = new cudaEvent_t();
            final int rc = JCuda.cudaEventCreateWithFlags(event, JCuda.cudaEventDisableTiming);
            if (rc != 0) {
                // The events made so far would leak: destroy them, reporting the creation's failure first.
                final CudaException failure = new CudaException("cudaEventCreateWithFlags", rc);
                try {
                    close();
                } catch (final RuntimeException ex) {
                    failure.addSuppressed(ex);
                }
                throw failure;
            }
            events[i] = event;
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
    /**
     * Waits for every recorded event and destroys them all, even when one step fails; then throws the
     * first failure (later ones suppressed in it), so a sticky CUDA error is not lost at close.
     */
    public void close() {
        if (!closed) {
            closed = true;
            CudaContext.use(device);
            final Closer closer = new Closer();
            for (final cudaEvent_t event : events) {
                if (event != null) {
                    closer.run(() -> CudaException.check(JCuda.cudaEventSynchronize(event), "cudaEventSynchronize"));
                    closer.run(() -> CudaException.check(JCuda.cudaEventDestroy(event), "cudaEventDestroy"));
                }
            }
            closer.rethrowUnchecked();
        }
    }
}
