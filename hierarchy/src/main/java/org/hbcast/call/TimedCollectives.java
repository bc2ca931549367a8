package org.hbcast.call;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.mpi.port.ReduceOp;
import org.hbcast.stage.Awaited;
import org.hbcast.stage.ProgressWait;

/**
 * Collectives waited for like the rest of a call (the wait a caller gives, {@link
 * ProgressWait#forSharedCores} in a call): an all-reduce (MAX) of a few longs, a reduce that releases
 * one rank last and a barrier, all non-blocking, so a rank that never joins (late, dead, or calling
 * something else) is reported after the wait's period, naming what was awaited, and given up on where
 * the wait's limit says so instead of hanging in Open MPI. Reused from call to call; allocates only
 * what the binding allocates per collective (Open MPI's bindings: a request).
 */
public final class TimedCollectives {
    /** All-reduces given up on after a timeout, with their buffers: never freed, since MPI may still write them. */
    private static final List<Object> ABANDONED = Collections.synchronizedList(new ArrayList<>());

    private final MpiComm comm;
    private final int capacity;
    private final ProgressWait wait;
    private LongBuffer reduced;
    /** The root's result of {@link #releaseLast}, never read. */
    private LongBuffer released = buffer(1);
    /** The slot of the collective in flight, refilled by each. */
    private MpiRequest request;

    /**
     * @param capacity the most words one reduction carries
     * @param wait how this rank waits for the others, and for how long (this object's alone)
     */
    public TimedCollectives(MpiComm comm, int capacity, ProgressWait wait) {
        this.comm = comm;
        this.capacity = capacity;
        this.wait = wait;
        this.reduced = buffer(capacity);
        this.request = comm.newRequest();
    }

    private static LongBuffer buffer(int words) {
        return ByteBuffer.allocateDirect(words * Long.BYTES)
                .order(ByteOrder.nativeOrder())
                .asLongBuffer();
    }

    long timeoutNs() {
        return wait.timeoutNs();
    }

    /**
     * Replaces {@code words[0..n)} by their maximum over the communicator's ranks. Collective.
     *
     * @param awaited what the reduction is for, for a report of a long wait
     * @return false when some rank did not join within the timeout and the wait gives up (the
     *         communicator is unusable then: the all-reduce stays posted, into a buffer this object no
     *         longer uses)
     */
    public boolean reduce(long[] words, int n, Awaited awaited) throws MpiFailure {
        if (n > capacity) {
            throw new IllegalArgumentException(n + " words, at most " + capacity);
        }
        reduced.put(0, words, 0, n);
        comm.iAllReduce(reduced, n, ReduceOp.MAX, request);
        if (!completes(awaited)) {
            // A late peer may still write the buffer: keep it alive, use a new one.
            ABANDONED.add(reduced);
            reduced = buffer(capacity);
            return false;
        }
        reduced.get(0, words, 0, n);
        return true;
    }

    /**
     * Lets every rank but {@code root} go as soon as its part is sent, and {@code root} only when all
     * have joined (a reduce to it, of nothing): what follows starts on the others first. False when
     * some rank did not join within the timeout and the wait gives up.
     */
    public boolean releaseLast(int root, Awaited awaited) throws MpiFailure {
        reduced.put(0, 0L);
        comm.iReduce(reduced, released, 1, ReduceOp.MAX, root, request);
        if (!completes(awaited)) {
            ABANDONED.add(reduced);
            ABANDONED.add(released);
            reduced = buffer(capacity);
            released = buffer(1);
            return false;
        }
        return true;
    }

    /**
     * A barrier over the communicator's ranks; false when some rank did not join within the timeout
     * and the wait gives up.
     */
    public boolean barrier(Awaited awaited) throws MpiFailure {
        comm.iBarrier(request);
        return completes(awaited);
    }

    /** Waits for the collective just posted into {@link #request}; one given up on keeps its request, a new one takes its place. */
    private boolean completes(Awaited awaited) throws MpiFailure {
        wait.reset();
        while (!request.test()) {
            if (wait.timedOut(0, awaited)) {
                ABANDONED.add(request);
                request = comm.newRequest();
                return false;
            }
        }
        return true;
    }
}
