package org.hbcast.orchestration;

import java.util.function.LongSupplier;
import org.hbcast.engine.RingAbortedException;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.StopNotices;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmRingLinks;

/**
 * Whether an instance may still be used, and how it stops: a call that failed part way leaves it
 * unusable, naming the failure in every later call, and tells every other rank once, so that none
 * waits for this one.
 */
final class InstanceStop {
    private final int rank;
    private final int position;
    private final StopNotices notices;
    /** The node's ring and fan-out (either may be null), aborted on this rank's behalf when it breaks. */
    private final ShmRingLinks ring;

    private final ShmFanout fanout;
    /** The program's calls so far, which the notice names. */
    private final LongSupplier calls;

    private String brokenBy;
    private boolean closed;

    InstanceStop(int rank, int position, StopNotices notices, ShmRingLinks ring, ShmFanout fanout, LongSupplier calls) {
        this.rank = rank;
        this.position = position;
        this.notices = notices;
        this.ring = ring;
        this.fanout = fanout;
        this.calls = calls;
    }

    /** Throws unless the instance is open and whole. */
    /** Whether an earlier failure stopped the instance (its calls can no longer run). */
    boolean isStopped() {
        return brokenBy != null;
    }

    void requireUsable() throws MpiFailure {
        if (closed) {
            throw MpiErrors.failed("hbcast: this HierarchicalBcast is closed");
        }
        if (brokenBy != null) {
            throw MpiErrors.failed("hbcast: unusable after an earlier failure: " + brokenBy);
        }
    }

    /** Marks the instance closed; true if it was open. */
    boolean close() {
        boolean wasOpen = !closed;
        closed = true;
        return wasOpen;
    }

    /**
     * A call failed part way (a peer's chunk of another call, an aborted ring, a time-out given up on,
     * roots that disagree with messages in flight): the instance stops, and every other rank hears
     * it, so none waits for this rank.
     */
    void stop(String why, Exception cause) throws MpiFailure {
        brokenBy = why;
        tellUnlessTold(cause);
        throw MpiErrors.failed(why, cause);
    }

    /**
     * Anything but an {@code MpiFailure} out of a call (an {@code OutOfMemoryError} making scratch
     * memory, a bug) may have left this rank out of the plan its peers run, so its next call could
     * take their messages for its own: the instance stops here, its node's peers learn it from the
     * aborted ring and fan-out, and every other rank from this rank's notice. An {@code Error} is
     * rethrown as it is, after the instance is marked.
     */
    MpiFailure broken(Throwable e) {
        brokenBy = "hbcast bcast on rank " + rank + ": " + e;
        tellUnlessTold(e);
        // The node's transports are sticky-aborted on this rank's behalf: a neighbour waiting for it now, or
        // using them in a later call, fails at once naming this rank, instead of taking part in a half call.
        if (ring != null) {
            ring.inbox().abort(ring.position());
            ring.outbox().abort(ring.position());
        }
        if (fanout != null) {
            fanout.abort(fanout.position());
        }
        if (e instanceof Error error) {
            throw error;
        }
        return MpiErrors.failed(brokenBy, e);
    }

    /**
     * Sends this rank's notice unless {@code cause} is one the others hear already: a peer's notice,
     * or a node peer's abort of the ring or fan-out (that peer sent its own). One notice per failure,
     * not one per rank that learns of it.
     */
    private void tellUnlessTold(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof StopNotices.PeerStopped) {
                return;
            }
            if (c instanceof RingAbortedException aborted && aborted.originRank() != position) {
                return;
            }
        }
        notices.tellAll(calls.getAsLong(), brokenBy);
    }
}
