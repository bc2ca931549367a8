package org.hbcast.call;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ThreadLevel;

/**
 * Refuses, before anything is sent, the concurrent calls that MPI does not allow: a second call on
 * the same instance (collectives on one communicator are one at a time in every thread level), and
 * calls on two communicators at once from two threads unless MPI was initialised with
 * {@code MPI_THREAD_MULTIPLE}. Two atomic operations per call; strings only for the error.
 */
public final class ThreadGuard {
    /** hbcast calls in progress in this process, on any instance. */
    private static final AtomicInteger CALLS_IN_FLIGHT = new AtomicInteger();

    private final AtomicBoolean busy = new AtomicBoolean();
    private final ThreadLevel level;
    private final int rank;

    /** @param level the thread level MPI provides */
    public ThreadGuard(ThreadLevel level, int rank) {
        this.level = level;
        this.rank = rank;
    }

    /** Call first in every call; pair with {@link #exit()} in a finally block once it returned. */
    public void enter() throws MpiFailure {
        if (!busy.compareAndSet(false, true)) {
            throw MpiErrors.failed("hbcast bcast on rank " + rank + ": this HierarchicalBcast is already in a call on"
                    + " another thread; calls on one communicator go one at a time, as MPI collectives do");
        }
        if (CALLS_IN_FLIGHT.getAndIncrement() > 0 && level != ThreadLevel.MULTIPLE) {
            CALLS_IN_FLIGHT.decrementAndGet();
            busy.set(false);
            throw MpiErrors.failed("hbcast bcast on rank " + rank + ": another thread is in a broadcast on another"
                    + " communicator, but MPI provides thread level " + level.threadName() + "; concurrent calls need"
                    + " MPI.InitThread(args, MPI.THREAD_MULTIPLE)");
        }
    }

    public void exit() {
        CALLS_IN_FLIGHT.decrementAndGet();
        busy.set(false);
    }
}
