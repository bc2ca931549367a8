package org.hbcast.mpi.openmpi;

import mpi.MPIException;
import mpi.Request;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;

/**
 * A request slot over the bindings' {@link Request}: each immediate operation posted into it puts
 * the bindings' new request here, so the port adds no object per message to the one the bindings
 * make. Empty, it is MPI's null request.
 */
final class OpenMpiRequest implements MpiRequest {
    /** The operation's request, or null while nothing was posted. */
    Request request;

    @Override
    public boolean test() throws MpiFailure {
        try {
            return request == null || request.test();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void waitFor() throws MpiFailure {
        try {
            if (request != null) {
                request.waitFor();
            }
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void cancel() throws MpiFailure {
        try {
            if (request != null) {
                request.cancel();
            }
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void free() throws MpiFailure {
        try {
            if (request != null) {
                request.free();
            }
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }
}
