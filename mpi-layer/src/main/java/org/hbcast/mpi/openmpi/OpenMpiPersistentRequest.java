package org.hbcast.mpi.openmpi;

import mpi.MPIException;
import mpi.Prequest;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiPersistentRequest;

/** A persistent request over the bindings' {@link Prequest}, made once per buffer, peer and tag. */
final class OpenMpiPersistentRequest implements MpiPersistentRequest {
    private final Prequest request;

    OpenMpiPersistentRequest(Prequest request) {
        this.request = request;
    }

    @Override
    public void start() throws MpiFailure {
        try {
            request.start();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public boolean test() throws MpiFailure {
        try {
            return request.test();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void waitFor() throws MpiFailure {
        try {
            request.waitFor();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void cancel() throws MpiFailure {
        try {
            request.cancel();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void free() throws MpiFailure {
        try {
            request.free();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }
}
