package org.hbcast.orchestration;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import org.hbcast.call.CountRule;
import org.hbcast.call.ElementType;
import org.hbcast.call.HostCopy;
import org.hbcast.call.Message;
import org.hbcast.header.CallHeaders;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.Plan;
import org.hbcast.select.InRunSelection;

/**
 * A broadcast of host memory: binds the program's arguments, learns the root's count (from the
 * call's header, or the per-call agreement, see {@link CountRule}), runs the plan in-run selection
 * gives, through a direct copy for Java arrays (the transports move direct memory only), and times
 * the call for the trials. Also what the warm-up drives ({@link JitWarmUp.Calls}).
 */
final class HostCall {
    private final MpiComm comm;
    private final int rank;
    private final int size;
    private final Message message = new Message();
    /** The call headers, when the root's count governs (see {@link CountRule#ROOT}; else null). */
    private final CallHeaders headers;

    private final InRunSelection selection;
    private final PlanDriver driver;
    /** The node's host transports, bound to each call's memory for the driver. */
    private final HostMemory memory;

    private final CountAgreement counts;
    private final InstanceStop stop;
    /** Direct memory that array messages are copied through. */
    private ByteBuffer arrayCopy;
    /** Where a rank that cannot take the root's bytes receives them, to drop them (made on first need). */
    private ByteBuffer scratch;
    /** The stamp of the call running, which the plan's messages carry. */
    private long stamp;
    /** Where calls spend their time ({@code HBCAST_BREAKDOWN=1}), else null. */
    private final CallBreakdown breakdown = CallBreakdown.on() ? new CallBreakdown() : null;

    HostCall(
            MpiComm comm,
            CallHeaders headers,
            InRunSelection selection,
            PlanDriver driver,
            HostMemory memory,
            CountAgreement counts,
            InstanceStop stop)
            throws MpiFailure {
        this.comm = comm;
        this.rank = comm.rank();
        this.size = comm.size();
        this.headers = headers;
        this.selection = selection;
        this.driver = driver;
        this.memory = memory;
        this.counts = counts;
        this.stop = stop;
    }

    /** Whether calls carry a header. */
    boolean headed() {
        return headers != null;
    }

    /** One program call (see {@link Broadcaster#bcast(Object, int, ElementType, String, int)}). */
    void call(long stamp, Object buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        this.stamp = stamp;
        String refused = null;
        try {
            message.bind(buf, count, type, root, rank, size, unsupported);
        } catch (IllegalArgumentException e) {
            refused = "hbcast bcast on rank " + rank + ": " + e.getMessage();
        }
        long start = selection.startOf(message.bytes());
        if (breakdown != null) {
            breakdown.begin();
        }
        try {
            if (headers != null) {
                headerCall(refused, root, type, start);
                return;
            }
            if (refused != null) {
                counts.refuse(root);
                throw MpiErrors.badArgument(refused);
            }
            message.adopt(counts.agree(message.bytes(), message.type(), root));
            header(message.bytes());
            if (message.bytes() == 0) {
                return;
            }
            run(selection.plan(message.bytes()), type);
            learn(message.bytes(), root, start);
            ended(false);
        } finally {
            message.clear();
        }
    }

    /** One run of {@code plan} on {@code bytes} of {@code buf}, outside a call: the warm-up's. */
    void runPlan(Plan plan, ByteBuffer buf, int bytes, int root) throws MpiFailure {
        message.bind(buf, bytes, ElementType.BYTE, root, rank, size, null);
        try {
            run(plan, ElementType.BYTE);
        } finally {
            message.clear();
        }
    }

    /** A host call under the root's count: the root's header decides what every rank moves. */
    private void headerCall(String refused, int root, ElementType type, long start) throws MpiFailure {
        boolean ok = refused == null;
        boolean rootInRange = root >= 0 && root < size;
        // Only the root's wish counts: the others learn from the header whether the message rode in it.
        boolean inline = ok && selection.inlines(message.bytes());
        switch (headers.exchange(
                refused,
                root,
                rootInRange,
                ok ? message.bytes() : 0,
                ok ? message.type() : null,
                ok ? message : null,
                inline)) {
            case ROOT, RECEIVE -> {
                // The root's own bytes for the root; a receiver keeps its buffer past them untouched.
                message.adopt(headers.rootBytes());
                header(message.bytes());
                if (message.bytes() > 0 && !headers.inlined()) {
                    run(selection.plan(message.bytes()), type);
                }
                learn(message.bytes(), headers.root(), start);
                ended(headers.inlined());
            }
            case SCRATCH -> {
                // Take part so the others finish, then fail: the data is dropped, as Open MPI drops it.
                long bytes = headers.rootBytes();
                if (bytes > 0 && !headers.inlined()) {
                    scratch = HostCopy.atLeast(scratch, bytes);
                    message.bind(scratch, (int) bytes, ElementType.BYTE, headers.root(), rank, size, null);
                    run(selection.plan(bytes), ElementType.BYTE);
                }
                learn(bytes, headers.root(), start);
                throw ok
                        ? new MpiFailure(headers.problemClass(), headers.problem())
                        : MpiErrors.badArgument(headers.problem());
            }
            case REFUSED ->
                throw headers.problemClass() == MpiErrorClass.ERR_ROOT
                        ? MpiErrors.rootsDisagree(headers.problem())
                        : MpiErrors.badArgument(headers.problem());
            // Messages may be left in flight or a peer may still wait: the instance stops, and says so to all.
            case TIMED_OUT, CONFLICT -> stop.stop(headers.problem(), null);
            default -> throw new IllegalStateException("no such outcome");
        }
    }

    /** Times a finished call for the trials; a failure to agree on a verdict stops the instance. */
    private void learn(long bytes, int root, long startNs) throws MpiFailure {
        try {
            selection.learn(bytes, root, startNs);
        } catch (MpiFailure e) {
            stop.stop(e.getMessage(), e);
        }
        if (breakdown != null) {
            breakdown.lap(CallBreakdown.TRIALS);
        }
    }

    /** The breakdown's header phase ends: the call's size is known. */
    private void header(long bytes) {
        if (breakdown != null) {
            breakdown.size(bytes);
            breakdown.lap(CallBreakdown.HEADER);
        }
    }

    private void ended(boolean inline) {
        if (breakdown != null) {
            breakdown.end(inline);
        }
    }

    private void lap(int phase) {
        if (breakdown != null) {
            breakdown.lap(phase);
        }
    }

    /** Forgets the calls broken down so far (create's warm-up). */
    void resetBreakdown() {
        if (breakdown != null) {
            breakdown.reset();
        }
    }

    /** Prints where this rank's calls spent their time ({@code HBCAST_BREAKDOWN=1}; else nothing). */
    void printBreakdown(int host, int position) {
        if (breakdown != null) {
            breakdown.print(System.err, rank, "host " + host + " position " + position);
        }
    }

    private void run(Plan plan, ElementType type) throws MpiFailure {
        if (plan.algorithm() == Algorithm.NATIVE) {
            lap(CallBreakdown.COPY_IN);
            comm.bcast(message.buffer(), message.count(), type.basicType(), message.root());
            lap(CallBreakdown.PLAN);
            return;
        }
        long bytes = message.bytes();
        int root = message.root();
        Buffer data;
        if (message.isArray()) {
            arrayCopy = HostCopy.atLeast(arrayCopy, bytes);
            data = arrayCopy;
            if (rank == root) {
                HostCopy.arrayToMemory(message.buffer(), HostCopy.address(arrayCopy), bytes);
            }
        } else {
            data = (Buffer) message.buffer();
        }
        lap(CallBreakdown.COPY_IN);
        try {
            driver.run(stamp, plan, memory.bind(data, message.isArray() ? 1 : message.entryBytes()), bytes, root);
        } catch (MpiFailure e) {
            stop.stop(e.getMessage(), e);
        }
        lap(CallBreakdown.PLAN);
        if (breakdown != null) {
            breakdown.moment(CallBreakdown.TREE_DONE, driver.treeDoneAtNs());
            breakdown.moment(CallBreakdown.NODE_DONE, driver.nodeDoneAtNs());
        }
        if (message.isArray() && rank != root) {
            HostCopy.memoryToArray(HostCopy.address(arrayCopy), message.buffer(), bytes);
        }
        lap(CallBreakdown.COPY_OUT);
    }
}
