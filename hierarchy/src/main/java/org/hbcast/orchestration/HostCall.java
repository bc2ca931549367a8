package org.hbcast.orchestration;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import org.hbcast.call.CountRule;
import org.hbcast.call.ElementType;
import org.hbcast.call.HostCopy;
import org.hbcast.call.Message;
import org.hbcast.header.CallHeaders;
import org.hbcast.header.HeaderRelay;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;
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
    /** Whether the communicator is one host (headers cross no network). */
    private final boolean oneHost;

    // The opened non-blocking call's arguments, until its header step.
    private ElementType openType;
    private int openRoot;
    private String openRefused;
    /** Whether the started non-blocking call is Open MPI's own ({@link #nativeRequest}), not the driver's. */
    private boolean nativeRunning;
    /** The request of a non-blocking call of the native plan, made at the first. */
    private MpiRequest nativeRequest;
    /** Where blocking calls spend their time ({@code HBCAST_BREAKDOWN=1}), else null. */
    private final CallBreakdown breakdown = CallBreakdown.on() ? new CallBreakdown() : null;

    HostCall(
            MpiComm comm,
            CallHeaders headers,
            InRunSelection selection,
            PlanDriver driver,
            HostMemory memory,
            CountAgreement counts,
            InstanceStop stop,
            boolean oneHost)
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
        this.oneHost = oneHost;
    }

    /** Whether calls carry a header. */
    boolean headed() {
        return headers != null;
    }

    /** One program call (see {@link Broadcaster#bcast(Object, int, ElementType, String, int)}). */
    void call(long stamp, Object buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        this.stamp = stamp;
        String refused = bind("bcast", buf, count, type, unsupported, root);
        long start = selection.startOf(message.bytes());
        if (breakdown != null) {
            breakdown.begin();
        }
        try {
            if (headers != null) {
                headerCall(refused, root, type, start, true);
                return;
            }
            agreeCount(refused, root);
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

    /**
     * Binds a call's arguments ({@code what}: the call, as its message names it). Returns why they
     * are refused, else null: a bad argument is refused in the call's header step (or count
     * agreement), not thrown here, so that no other rank waits for this one. The message is built
     * only on failure.
     */
    private String bind(String what, Object buf, int count, ElementType type, String unsupported, int root) {
        try {
            message.bind(buf, count, type, root, rank, size, unsupported);
            return null;
        } catch (IllegalArgumentException e) {
            return "hbcast " + what + " on rank " + rank + ": " + e.getMessage();
        }
    }

    /**
     * Without headers, the per-call count agreement (which waits for every rank): joined with a
     * refusal where this rank's arguments were refused, then thrown; else the message takes the
     * agreed count.
     */
    private void agreeCount(String refused, int root) throws MpiFailure {
        if (refused != null) {
            counts.refuse(root);
            throw MpiErrors.badArgument(refused);
        }
        message.adopt(counts.agree(message.bytes(), message.type(), root));
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

    /**
     * A host call under the root's count: the root's header decides what every rank moves. A
     * blocking call runs its plan to the end and is timed for the trials; a non-blocking one only
     * starts its plan ({@link #advance()} goes on) and is not timed, on every rank alike.
     *
     * @return true when the call is complete (always, when blocking)
     */
    private boolean headerCall(String refused, int root, ElementType type, long start, boolean blocking)
            throws MpiFailure {
        boolean ok = refused == null;
        boolean rootInRange = root >= 0 && root < size;
        // Only the root's wish counts: the others learn from the header whether the message rode in it.
        boolean inline = ok && (blocking ? selection.inlines(message.bytes()) : inlinesNonBlocking(message.bytes()));
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
                boolean moves = message.bytes() > 0 && !headers.inlined();
                if (!blocking) {
                    return !moves || beginNonBlocking(selection.keptPlan(message.bytes()), type);
                }
                header(message.bytes());
                if (moves) {
                    run(selection.plan(message.bytes()), type);
                }
                learn(message.bytes(), headers.root(), start);
                ended(headers.inlined());
                return true;
            }
            case SCRATCH -> {
                // Take part so the others finish, then fail: the data is dropped, as Open MPI drops it.
                long bytes = headers.rootBytes();
                if (bytes > 0 && !headers.inlined()) {
                    scratch = HostCopy.atLeast(scratch, bytes);
                    message.bind(scratch, (int) bytes, ElementType.BYTE, headers.root(), rank, size, null);
                    if (blocking) {
                        run(selection.plan(bytes), ElementType.BYTE);
                    } else if (!beginNonBlocking(selection.keptPlan(bytes), ElementType.BYTE)) {
                        // The same collective as the others' (MPI_Ibcast matches no blocking bcast), run out.
                        complete();
                    }
                }
                if (blocking) {
                    learn(bytes, headers.root(), start);
                }
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
        return true;
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
        if (begin(plan, type)) {
            lap(CallBreakdown.PLAN);
            return;
        }
        try {
            driver.complete();
        } catch (MpiFailure e) {
            stop.stop(e.getMessage(), e);
        }
        lap(CallBreakdown.PLAN);
        if (breakdown != null) {
            breakdown.moment(CallBreakdown.TREE_DONE, driver.treeDoneAtNs());
            breakdown.moment(CallBreakdown.NODE_DONE, driver.nodeDoneAtNs());
        }
        copyBack();
        lap(CallBreakdown.COPY_OUT);
    }

    /**
     * Starts {@code plan} on the bound message: true when it is complete already (native runs
     * Open MPI's blocking bcast), else {@link PlanDriver} holds the started call.
     */
    private boolean begin(Plan plan, ElementType type) throws MpiFailure {
        if (plan.algorithm() == Algorithm.NATIVE) {
            lap(CallBreakdown.COPY_IN);
            comm.bcast(message.buffer(), message.count(), type.basicType(), message.root());
            return true;
        }
        long bytes = message.bytes();
        int root = message.root();
        Buffer data = direct();
        lap(CallBreakdown.COPY_IN);
        try {
            driver.begin(stamp, plan, memory.bind(data, message.isArray() ? 1 : message.entryBytes()), bytes, root);
        } catch (MpiFailure e) {
            stop.stop(e.getMessage(), e);
        }
        return false;
    }

    /**
     * {@link #begin} for a non-blocking call: the native plan runs Open MPI's own non-blocking
     * broadcast (a blocking one here could wait for a rank that waits in a call of its own).
     */
    private boolean beginNonBlocking(Plan plan, ElementType type) throws MpiFailure {
        if (plan.algorithm() != Algorithm.NATIVE) {
            nativeRunning = false;
            return begin(plan, type);
        }
        Buffer data = direct();
        if (nativeRequest == null) {
            nativeRequest = comm.newRequest();
        }
        comm.iBcast(data, (int) message.bytes(), message.root(), nativeRequest);
        nativeRunning = true;
        return false;
    }

    /** The message's direct memory: the buffer itself, or the array's copy (filled at the root). */
    private Buffer direct() {
        if (!message.isArray()) {
            return (Buffer) message.buffer();
        }
        arrayCopy = HostCopy.atLeast(arrayCopy, message.bytes());
        if (rank == message.root()) {
            HostCopy.arrayToMemory(message.buffer(), HostCopy.address(arrayCopy), message.bytes());
        }
        return arrayCopy;
    }

    /** An array message's receivers take the bytes from the direct copy. */
    private void copyBack() {
        if (message.isArray() && rank != message.root()) {
            HostCopy.memoryToArray(HostCopy.address(arrayCopy), message.buffer(), message.bytes());
        }
    }

    // A non-blocking call: open, then start once its header is ready, then advance (or complete) to its end.

    /**
     * Binds a non-blocking call's arguments. A bad argument is kept, not thrown: the call refuses it
     * in its header step, as a blocking call does, so that no other rank waits for this one.
     */
    void open(long stamp, Object buf, int count, ElementType type, String unsupported, int root) {
        this.stamp = stamp;
        openType = type;
        openRoot = root;
        openRefused = bind("iBcast", buf, count, type, unsupported, root);
    }

    /**
     * Whether the opened call's header step would not wait (see {@link CallHeaders#ready}), room on
     * the board for the message it would carry included.
     */
    boolean headerReady() throws MpiFailure {
        if (headers == null) {
            return true;
        }
        long wish = openRefused == null && inlinesNonBlocking(message.bytes()) ? message.bytes() : 0;
        return headers.ready(openRefused, openRoot, openRoot >= 0 && openRoot < size, wish);
    }

    /**
     * Whether a non-blocking call of {@code bytes} (the root's wish) rides in its header: where the
     * kept verdicts say so, and across hosts only what leaves eagerly, so its root never waits in a
     * test for a leader's receive.
     */
    private boolean inlinesNonBlocking(long bytes) {
        return selection.keptInlines(bytes) && (oneHost || bytes <= HeaderRelay.FIRST_PAYLOAD);
    }

    /**
     * The opened call's header step (or, without headers, its count agreement, which waits) and the
     * start of its plan.
     *
     * @return true when the call is complete already (a message in the header, zero bytes, native)
     * @throws MpiFailure as {@link #call} throws; the call is then over
     */
    boolean start() throws MpiFailure {
        boolean done = true;
        try {
            if (headers != null) {
                done = headerCall(openRefused, openRoot, openType, InRunSelection.UNTIMED, false);
                return done;
            }
            agreeCount(openRefused, openRoot);
            done = message.bytes() == 0 || beginNonBlocking(selection.keptPlan(message.bytes()), openType);
            return done;
        } finally {
            if (done) {
                message.clear();
            }
        }
    }

    /** One round of the started call without waiting: true once it is complete. */
    boolean advance() throws MpiFailure {
        boolean done = false;
        try {
            done = nativeRunning ? nativeRequest.test() : driver.poll();
        } catch (MpiFailure e) {
            message.clear();
            stop.stop(e.getMessage(), e);
        }
        if (done) {
            finish();
        }
        return done;
    }

    /** Runs the started call to its end, waiting for peers as a blocking call does. */
    void complete() throws MpiFailure {
        try {
            if (nativeRunning) {
                nativeRequest.waitFor();
            } else {
                driver.complete();
            }
        } catch (MpiFailure e) {
            message.clear();
            stop.stop(e.getMessage(), e);
        }
        finish();
    }

    private void finish() {
        try {
            copyBack();
        } finally {
            message.clear();
        }
    }
}
