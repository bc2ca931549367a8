package org.hbcast.agent;

import java.nio.Buffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.HierarchicalBcast;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.settings.Setting;

/**
 * What the woven advice calls: one {@link HierarchicalBcast} per intra-communicator, made at its
 * first supported {@code bcast} (collective, as that call is) and closed when the communicator is
 * freed or disconnected, or at {@code MPI.Finalize}. Calls hbcast does not take go to Open MPI
 * untouched: inter-communicators, derived datatypes, heap buffers and anything else but a primitive
 * array or a direct buffer of a supported type. Calls made by hbcast itself (its own communicators)
 * are never redirected.
 *
 * <p>The program was written for Open MPI's semantics, so it keeps them: its instances wait for a
 * late root or peer as Open MPI does, reporting a long wait, and never fail on a time-out whatever
 * {@code HBCAST_TIMEOUT_FAILS} says. A communicator whose instance could not be made (a bad
 * {@code HBCAST_*} value, shared memory full) is remembered: that call and all its later ones go to
 * Open MPI, with one line on stderr saying why; {@code create} is never tried again on it, since the
 * other ranks would not be in that collective.
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
    /** Communicators whose instance could not be made: their calls go to Open MPI. */
    private static final Set<Object> UNSUPPORTED = ConcurrentHashMap.newKeySet();
    /** Why instances could not be made, each said once per process. */
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    private static final AtomicLong REDIRECTED = new AtomicLong();
    private static final AtomicLong PASSED = new AtomicLong();

    private Redirect() {}

    /** True when hbcast broadcast the call; false to let the bindings run it. */
    public static boolean bcast(Object comm, Object buf, int count, Object type, int root) throws MPIException {
        boolean[] inside = INSIDE.get();
        if (inside[0]) {
            return false;
        }
        if (!(comm instanceof Intracomm intra) || !supported(buf, type) || UNSUPPORTED.contains(comm)) {
            PASSED.incrementAndGet();
            return false;
        }
        inside[0] = true;
        try {
            HierarchicalBcast hb = instance(intra);
            if (hb == null) {
                // Nothing was sent on the failed create's behalf: this call too is Open MPI's.
                PASSED.incrementAndGet();
                return false;
            }
            hb.bcast(buf, count, (Datatype) type, root);
        } finally {
            inside[0] = false;
        }
        REDIRECTED.incrementAndGet();
        return true;
    }

    /**
     * {@code Comm.iBcast}: hbcast's non-blocking broadcast of the communicator's instance, returned as
     * a {@link RedirectedRequest}; null to let the bindings run it.
     */
    public static Object iBcast(Object comm, Object buf, int count, Object type, int root) throws MPIException {
        boolean[] inside = INSIDE.get();
        if (inside[0]) {
            return null;
        }
        if (!(comm instanceof Intracomm intra) || !supported(buf, type) || UNSUPPORTED.contains(comm)) {
            PASSED.incrementAndGet();
            return null;
        }
        inside[0] = true;
        RedirectedRequest request;
        try {
            HierarchicalBcast hb = instance(intra);
            if (hb == null) {
                PASSED.incrementAndGet();
                return null;
            }
            request = new RedirectedRequest(hb.iBcast(buf, count, (Datatype) type, root));
        } finally {
            inside[0] = false;
        }
        REDIRECTED.incrementAndGet();
        return request;
    }

    /** {@code Request.test()} and {@code testStatus()}: null for a request of the bindings, else whether it completed. */
    public static Boolean test(Object request) throws MPIException {
        if (!(request instanceof RedirectedRequest r)) {
            return null;
        }
        boolean[] inside = INSIDE.get();
        boolean outer = !inside[0];
        inside[0] = true;
        try {
            return r.moved();
        } finally {
            if (outer) {
                inside[0] = false;
            }
        }
    }

    /** {@code Request.waitFor()} and {@code waitStatus()}: false for a request of the bindings, else waits. */
    public static boolean await(Object request) throws MPIException {
        if (!(request instanceof RedirectedRequest r)) {
            return false;
        }
        boolean[] inside = INSIDE.get();
        boolean outer = !inside[0];
        inside[0] = true;
        try {
            r.await();
        } finally {
            if (outer) {
                inside[0] = false;
            }
        }
        return true;
    }

    /** {@code Request.waitAll}: completes the redirected requests among {@code requests} first. */
    public static void awaitAll(Object[] requests) throws MPIException {
        if (requests != null) {
            for (Object r : requests) {
                await(r);
            }
        }
    }

    /** {@code Request.testAll}: tests the redirected requests among {@code requests}; whether all of them completed. */
    public static boolean testAll(Object[] requests) throws MPIException {
        boolean all = true;
        if (requests != null) {
            for (Object r : requests) {
                Boolean done = test(r);
                all &= done == null || done;
            }
        }
        return all;
    }

    /** {@code Request.isNull()}: null for a request of the bindings, else whether it completed. */
    public static Boolean isNull(Object request) {
        return request instanceof RedirectedRequest r ? r.complete() : null;
    }

    /** The status of a completed broadcast: empty, as MPI leaves a collective's. */
    public static Object emptyStatus() {
        try {
            var make = mpi.Status.class.getDeclaredConstructor();
            make.setAccessible(true);
            return make.newInstance();
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("hbcast agent: cannot make an mpi.Status: " + e, e);
        }
    }

    private static boolean supported(Object buf, Object type) {
        if (!(type instanceof Datatype datatype) || OpenMpi.basicType(datatype) == null || buf == null) {
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
            try {
                // A progress thread's own MPI calls would come back here from a thread of its own.
                hb = HierarchicalBcast.create(
                        comm, BcastOptions.defaults().withTimeoutFails(false).withProgressThread(false));
            } catch (MPIException | IllegalArgumentException e) {
                unsupported(comm, e);
                return null;
            }
            synchronized (ORDER) {
                INSTANCES.put(comm, hb);
                ORDER.add(comm);
            }
        }
        return hb;
    }

    /**
     * Remembers that {@code comm} has no instance, and says why once per reason. {@code create} fails
     * on every rank together, so every rank passes the communicator's calls to Open MPI alike.
     */
    private static void unsupported(Intracomm comm, Exception why) throws MPIException {
        UNSUPPORTED.add(comm);
        String reason = why.getMessage();
        if (SAID.add(reason)) {
            System.err.println("hbcast agent on rank " + MPI.COMM_WORLD.getRank() + ": hbcast could not be set up on"
                    + " a communicator of " + comm.getSize() + " ranks, so its broadcasts go to Open MPI's own"
                    + " bcast: " + reason);
        }
    }

    /**
     * Before {@code comm.free()} or {@code comm.disconnect()}: closes its instance (collective, as
     * both are) and forgets the communicator.
     */
    public static void freeing(Object comm) throws MPIException {
        boolean[] inside = INSIDE.get();
        if (inside[0]) {
            return;
        }
        UNSUPPORTED.remove(comm);
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
        if ("1".equals(Setting.AGENT_REPORT.value())) {
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
