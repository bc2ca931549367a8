package org.hbcast.bench.tune;

import java.util.concurrent.TimeUnit;
import mpi.Intracomm;
import mpi.MPIException;
import mpi.Request;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

/**
 * A barrier that sleeps while it waits. Open MPI's own barrier polls (yielding at best), so ranks
 * that sit out a measurement would take cores from the ranks being measured on an oversubscribed
 * node; here they back off to parking within a few microseconds and wake at most a millisecond late.
 */
final class QuietBarrier {
    private static final long MAX_PARK_NS = TimeUnit.MILLISECONDS.toNanos(1);

    private QuietBarrier() {}

    /** Returns once every rank of {@code comm} has called it. */
    static void await(Intracomm comm) throws MPIException {
        Request request = comm.iBarrier();
        IdleStrategy idle = new BackoffIdleStrategy(10, 10, TimeUnit.MICROSECONDS.toNanos(1), MAX_PARK_NS);
        while (!request.test()) {
            idle.idle();
        }
    }
}
