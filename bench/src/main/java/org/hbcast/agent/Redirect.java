package org.hbcast.agent;

import java.nio.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPIException;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;

/**
 * What the woven advice calls: one {@link HierarchicalBcast} per intra-communicator, made at its
 * first supported {@code bcast} (collective, as that call is) and closed when the communicator is
 * freed or at {@code MPI.Finalize}. Calls hbcast does not take go to Open MPI untouched:
 * inter-communicators, derived datatypes, heap buffers and anything else but a primitive array or
 * a direct buffer of a supported type. Calls made by hbcast itself (its own communicators) are
 * never redirected.
 *
 * <p>The decision is made per rank from its own arguments, as the bindings' would be. A program
 * whose ranks pass different kinds of buffer to the same broadcast (a heap buffer on some, a direct
 * one on others) splits between Open MPI and hbcast, and that can hang: the first such call on a
 * communicator makes its instance, a collective that Open MPI runs without a timeout. A program
 * that builds its own {@link HierarchicalBcast} should not also run under the agent.
 */
public final class Redirect {
    /** Set while hbcast runs on this thread: its own MPI calls go to the bindings. */
    private static final ThreadLocal<boolean[]> INSIDE = ThreadLocal.withInitial(() -> new boolean[1]);
    /** By communicator; the bindings' communicators keep Object's identity equality. */
    private static final Map<Object, HierarchicalBcast> INSTANCES = new ConcurrentHashMap<>();
    /** Communicators in the order their instances were made: closed in that order at Finalize, on every rank alike. */
    private static final List<Object> ORDER = new ArrayList<>();

    private static final AtomicLong REDIRECTED = new AtomicLong();
    private static final AtomicLong PASSED = new AtomicLong();

    private Redirect() {}

    /** True when hbcast broadcast the call; false to let the bindings run it. */
    public static boolean bcast(Object comm, Object buf, int count, Object type, int root) throws MPIException {
        boolean[] inside = INSIDE.get();
        if (inside[0]) {
            return false;
        }
        if (!(comm instanceof Intracomm intra) || !supported(buf, type)) {
            PASSED.incrementAndGet();
            return false;
        }
        inside[0] = true;
        try {
            HierarchicalBcast hb = instance(intra);
            hb.bcast(buf, count, (Datatype) type, root);
        } finally {
            inside[0] = false;
        }
        REDIRECTED.incrementAndGet();
        return true;
    }

    private static boolean supported(Object buf, Object type) {
        if (!(type instanceof Datatype datatype) || ElementType.of(datatype) == null || buf == null) {
            return false;
        }
        if (buf instanceof Buffer b) {
            return b.isDirect();
        }
        return buf.getClass().isArray() && buf.getClass().getComponentType().isPrimitive();
    }

    /**
     * The communicator's instance, made on first use. Made outside the lock: creation is collective,
     * and under THREAD_MULTIPLE two threads may be making instances of two communicators at once,
     * in different orders on different ranks. One communicator is never in two calls at once.
     */
    private static HierarchicalBcast instance(Intracomm comm) throws MPIException {
        HierarchicalBcast hb = INSTANCES.get(comm);
        if (hb == null) {
            hb = HierarchicalBcast.create(comm);
            synchronized (ORDER) {
                INSTANCES.put(comm, hb);
                ORDER.add(comm);
            }
        }
        return hb;
    }

    /** Before {@code comm.free()}: closes its instance (collective, as free is). */
    public static void freeing(Object comm) throws MPIException {
        boolean[] inside = INSIDE.get();
        if (inside[0]) {
            return;
        }
        HierarchicalBcast hb;
        synchronized (ORDER) {
            hb = INSTANCES.remove(comm);
            ORDER.remove(comm);
        }
        if (hb != null) {
            close(hb);
        }
    }

    /** Before {@code MPI.Finalize()}: closes every instance left, in the order they were made, then reports. */
    public static void finalizing() throws MPIException {
        List<HierarchicalBcast> left = new ArrayList<>();
        synchronized (ORDER) {
            for (Object comm : ORDER) {
                left.add(INSTANCES.remove(comm));
            }
            ORDER.clear();
        }
        for (HierarchicalBcast hb : left) {
            try {
                close(hb);
            } catch (MPIException | RuntimeException e) {
                // Finalize must still run, or Open MPI aborts the job; the others still get closed.
                System.err.println("hbcast agent: closing a broadcast at MPI.Finalize failed: " + e.getMessage());
            }
        }
        if ("1".equals(System.getenv("HBCAST_AGENT_REPORT"))) {
            System.out.println(report());
            System.out.flush();
        }
    }

    /** The line {@code HBCAST_AGENT_REPORT=1} prints at Finalize. */
    public static String report() {
        return "hbcast agent: " + REDIRECTED.get() + " bcast calls redirected, " + PASSED.get() + " passed to Open MPI";
    }

    private static void close(HierarchicalBcast hb) throws MPIException {
        boolean[] inside = INSIDE.get();
        inside[0] = true;
        try {
            hb.close();
        } finally {
            inside[0] = false;
        }
    }
}
