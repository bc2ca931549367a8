package org.hbcast.mpi.openmpi;

import mpi.MPIException;
import mpi.Request;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;

/**
 * Completion over the bindings' {@link Request}, shared by the reusable slot and the persistent
 * request: test, wait, cancel and free, with the binding's {@link MPIException} turned into an
 * {@link MpiFailure}. No request at all (an empty slot) is MPI's null request: complete, nothing to free.
 */
abstract class BindingRequest implements MpiRequest {
    /** The bindings' request behind this one, or null for MPI's null request. */
    abstract Request bound();

    @Override
    public final boolean test() throws MpiFailure {
        Request r = bound();
        try {
            return r == null || r.test();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public final void waitFor() throws MpiFailure {
        Request r = bound();
        try {
            if (r != null) {
                r.waitFor();
            }
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public final void cancel() throws MpiFailure {
        Request r = bound();
        try {
            if (r != null) {
                r.cancel();
            }
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public final void free() throws MpiFailure {
        Request r = bound();
        try {
            if (r != null) {
                r.free();
            }
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }
}
