package org.hbcast.mpi.openmpi;

import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiPersistentRequest;

/** A persistent request over the bindings' {@link Prequest}, made once per buffer, peer and tag. */
final class OpenMpiPersistentRequest extends BindingRequest implements MpiPersistentRequest {
    private final Prequest request;

    OpenMpiPersistentRequest(Prequest request) {
        this.request = request;
    }

    @Override
    Request bound() {
        return request;
    }

    @Override
    public void start() throws MpiFailure {
        try {
            request.start();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }
}
