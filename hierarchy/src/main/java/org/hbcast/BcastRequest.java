package org.hbcast;

import mpi.MPIException;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.orchestration.Broadcaster;
import org.hbcast.orchestration.PendingBcast;

/**
 * A non-blocking broadcast started by {@link HierarchicalBcast#iBcast}: test it or wait for it, as
 * an {@code mpi.Request}. Until it is complete its buffer is the library's. Each look at it also
 * moves the instance's calls. Once {@link #test()} returned true or {@link #waitFor()} returned, the
 * request is freed, as MPI frees a completed request: the object may stand for a later call of the
 * same instance, so keep no reference to it past that point.
 */
public final class BcastRequest {
    private final Broadcaster calls;
    private final PendingBcast call;

    BcastRequest(Broadcaster calls, PendingBcast call) {
        this.calls = calls;
        this.call = call;
    }

    /**
     * Moves the instance's calls as far as they go without waiting and tells whether this one is
     * complete (then the request is freed).
     *
     * @throws MPIException when the broadcast failed: the error its blocking call would throw
     */
    public boolean test() throws MPIException {
        try {
            return calls.test(call);
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
    }

    /**
     * Waits until the broadcast is complete (running the calls issued before it), waiting for a late
     * root or peer as {@code bcast} does; then the request is freed.
     *
     * @throws MPIException when the broadcast failed: the error its blocking call would throw
     */
    public void waitFor() throws MPIException {
        try {
            calls.await(call);
        } catch (MpiFailure f) {
            throw OpenMpi.mpiException(f);
        }
    }

    /** Whether the broadcast is complete, without moving anything or freeing the request. */
    public boolean isDone() {
        return call.isDone();
    }
}
