package org.hbcast.orchestration;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The one rule of every collective set-up step (a node's shared memory, the CUDA ring): either every
 * rank goes on, or every rank fails with the first reason, so no rank waits for a peer that gave up.
 */
final class NodeSetup {
    private NodeSetup() {
    }

    /**
     * All ranks of {@code comm} learn whether any failed; all fail alike if one did, closing
     * {@code mine} (what this rank built so far) first.
     */
    static void agreeOrFail(Intracomm comm, String failure, AutoCloseable mine) throws MPIException {
        int[] failed = {failure == null ? 0 : 1};
        comm.allReduce(failed, 1, MPI.INT, MPI.MAX);
        if (failed[0] == 0) {
            return;
        }
        try {
            if (mine != null) {
                mine.close();
            }
        } catch (Exception ignored) {
            // Failing already; the reason below matters more.
        }
        throw new MPIException(failure != null ? failure
                : "another rank of this node could not set up its shared memory (see its error)");
    }
}
