package org.hbcast.mpi;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Drives Open MPI's progress engine from a wait that makes no MPI call of its own: a probe for a tag
 * nobody sends, which runs the engine and finds nothing (so the bindings make no {@code Status}).
 *
 * <p>Why it is needed: over TCP, a message past the eager limit goes in fragments after the receiver
 * agrees, and a blocking send returns as soon as its fragments are queued in the sender. A rank that
 * then waits on shared memory only (a header on its node's call board) never lets them leave, and
 * the receiver, whose next header the waiting rank may need, waits in its receive for ever. Seen on
 * the 2-host test bed: Open MPI's own broadcast (plan {@code native}) between the two hosts'
 * non-leaders hung in 9 runs of 11 of the soak (docs/soak-2host-s37.md).
 */
public final class ProgressKick implements Runnable {
    /** Clear of hbcast's other tags; never sent. */
    static final int TAG = 0x4871;

    private final Intracomm comm;

    public ProgressKick(Intracomm comm) {
        this.comm = comm;
    }

    @Override
    public void run() {
        try {
            comm.iProbe(MPI.ANY_SOURCE, TAG);
        } catch (MPIException e) {
            // The wait goes on; the call's own MPI operations report what is wrong.
        }
    }
}
