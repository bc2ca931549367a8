package org.hbcast.orchestration;

import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ReduceOp;

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
     * @throws MpiFailure naming the first failing rank's reason, on every rank
     */
    static void check(MpiComm comm, String failure) throws MpiFailure {
        int size = comm.size();
        int[] first = {failure == null ? size : comm.rank()};
        comm.allReduce(first, 1, ReduceOp.MIN);
        if (first[0] == size) {
            return;
        }
        String reason = StringExchange.broadcast(comm, failure, first[0]);
        // Each reason names its rank (a node's handshake knows the instance's rank, not its own communicator's).
        throw MpiErrors.failed(reason.startsWith("hbcast") ? reason : "hbcast: create failed: " + reason);
    }
}
