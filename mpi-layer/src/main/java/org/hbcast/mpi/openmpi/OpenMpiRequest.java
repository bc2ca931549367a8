package org.hbcast.mpi.openmpi;

import mpi.Request;

/**
 * A request slot over the bindings' {@link Request}: each immediate operation posted into it puts
 * the bindings' new request here, so the port adds no object per message to the one the bindings
 * make. Empty, it is MPI's null request.
 */
final class OpenMpiRequest extends BindingRequest {
    /** The operation's request, or null while nothing was posted. */
    Request request;

    @Override
    Request bound() {
        return request;
    }
}
