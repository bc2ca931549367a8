package org.hbcast.agent;

import mpi.MPIException;
import mpi.Request;
import org.hbcast.BcastRequest;

/**
 * What a redirected {@code Comm.iBcast} returns to the program: an {@code mpi.Request} whose handle
 * is MPI's null request, so that the bindings' natives never see it as pending, and whose
 * {@code test}, {@code waitFor} and their kin the agent's advice sends here ({@link Redirect}). Once
 * complete it stands for nothing, as MPI frees a completed request.
 */
final class RedirectedRequest extends Request {
    private BcastRequest call;

    RedirectedRequest(BcastRequest call) {
        super(getNull());
        this.call = call;
    }

    /** Moves the broadcast; true once it is complete (then the hbcast request is let go). */
    boolean moved() throws MPIException {
        if (call != null && call.test()) {
            call = null;
        }
        return call == null;
    }

    /** Waits until the broadcast is complete. */
    void await() throws MPIException {
        if (call != null) {
            call.waitFor();
            call = null;
        }
    }

    /** Whether the broadcast is complete (MPI's null request from then on). */
    boolean complete() {
        return call == null;
    }
}
