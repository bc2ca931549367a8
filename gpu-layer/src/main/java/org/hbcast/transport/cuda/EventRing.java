package org.hbcast.transport.cuda;

import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaException;
import org.hbcast.device.CudaStream;

/**
 * Timing-free CUDA events created once and used round-robin: event {@code i mod n} marks the
 * completion of the copy with sequence number {@code i} (and of everything queued before it on its
 * stream). The user keeps at most {@code n} sequence numbers outstanding, so an event is recorded
 * again only after its previous use was seen complete.
 */
public final class EventRing implements AutoCloseable {
    private final CudaCalls calls;
    private final long[] events;
    private int created;
    private boolean closed;

    /** Creates {@code count} events on {@code device} through {@code calls}. */
    public EventRing(final CudaCalls calls, final int device, final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("event count must be positive: " + count);
        }
        this.calls = calls;
        events = new long[count];
        try {
            while (created < count) {
                events[created] = calls.eventCreate(device);
                created++;
            }
        } catch (final CudaException failure) {
            // The events made so far would leak: destroy them, reporting the creation's failure first.
            try {
                close();
            } catch (final RuntimeException ex) {
                failure.addSuppressed(ex);
            }
            throw failure;
        }
    }

    /** Records the event of {@code sequence} after everything queued on {@code stream} so far. */
    public void record(final long sequence, final CudaStream stream) {
        calls.eventRecord(events[index(sequence)], stream.handle());
    }

    /** True when the event of {@code sequence} has completed; never blocks; throws when its copies failed. */
    public boolean isComplete(final long sequence) {
        return calls.eventQuery(events[index(sequence)]);
    }

    /** Number of events. */
    public int size() {
        return events.length;
    }

    private int index(final long sequence) {
        return (int) (sequence % events.length);
    }

    /**
     * Waits for every recorded event and destroys them all, even when one step fails; then throws the
     * first failure (later ones suppressed in it), so a sticky CUDA error is not lost at close.
     * Idempotent.
     */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            final Closer closer = new Closer();
            for (int i = 0; i < created; i++) {
                final long event = events[i];
                closer.run(() -> calls.eventSynchronize(event));
                closer.run(() -> calls.eventDestroy(event));
            }
            closer.rethrowUnchecked();
        }
    }
}
