package org.hbcast.orchestration;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.StringExchange;

/**
 * Makes a step of {@code create} fail on every rank or on none: a rank that fails alone and leaves
 * would leave the others waiting in the next collective, or in their first call. Every rank learns
 * the reason of the lowest rank that failed, so all report the same cause.
 */
final class CreateTogether {
    private CreateTogether() {}

    /**
     * Collective over {@code comm}: returns when no rank failed; otherwise throws on every rank.
     *
     * @param failure this rank's reason, or null when its step succeeded
     * @throws MPIException naming the first failing rank's reason, on every rank
     */
    static void check(Intracomm comm, String failure) throws MPIException {
        int size = comm.getSize();
        int[] first = {failure == null ? size : comm.getRank()};
        comm.allReduce(first, 1, MPI.INT, MPI.MIN);
        if (first[0] == size) {
            return;
        }
        String reason = StringExchange.broadcast(comm, failure, first[0]);
        // Each reason names its rank (a node's handshake knows the instance's rank, not its own communicator's).
        throw MpiErrors.failed(reason.startsWith("hbcast") ? reason : "hbcast: create failed: " + reason);
    }
}
