package org.hbcast.call;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.mpi.port.ProbedMessage;
import org.hbcast.stage.Awaited;
import org.hbcast.stage.ProgressWait;

/**
 * Makes every rank of a call know what the root sends before anything is sent, so that ranks may
 * pass different counts as Open MPI allows (see {@link CountRule}): one all-reduce (MAX) of nine
 * longs per call carries the roots the ranks passed, the root's byte count and element size, the
 * smallest receiver's byte count (with its rank), the largest element size and who refused. Every rank reaches
 * the same verdict from the same words, so a mismatch fails on every rank at once and nothing waits.
 *
 * <p>The all-reduce is non-blocking and waited for like the rest of a call ({@link
 * ProgressWait#forSharedCores}), so a rank that is late is reported after the timeout and, where
 * failing on a time-out was asked for, a rank that never joins (it died, or called something else)
 * makes the others fail instead of hanging in Open MPI.
 * Reused from call to call; allocates the bindings' request, and strings only for an error.
 */
public final class CallAgreement {
    /** What {@link #agree} returns when some rank never joined. */
    public static final long TIMED_OUT = -1;
    /** Tag of the roll call after a timeout; the tree uses another. */
    private static final int ROLL_CALL_TAG = 0x4865;
    /** How long the ranks that timed out wait for each other's roll-call answers. */
    private static final long ROLL_CALL_NS = TimeUnit.SECONDS.toNanos(2);

    /** Low bits of a receiver's key that hold its rank; the bytes go above them. */
    private static final int RANK_BITS = 20;

    private static final long RANK_MASK = (1L << RANK_BITS) - 1;

    private static final int ROOT_MAX = 0;
    private static final int ROOT_MIN = 1;
    private static final int ROOT_BYTES = 2;
    private static final int ROOT_ELEMENT = 3;
    private static final int RECEIVER_MIN = 4;
    private static final int ELEMENT_MAX = 5;
    private static final int BYTES_MAX = 6;
    private static final int BYTES_MIN = 7;
    /** 1 + the highest rank that refused its own arguments, or 0: such a rank still joins, so no rank falls a call behind. */
    private static final int REFUSED_BY = 8;

    static final int WORDS = 9;

    private final MpiComm comm;
    private final int rank;
    private final long[] words = new long[WORDS];
    private final TimedCollectives reduction;
    private final double timeoutSeconds;
    /** The call this rank agrees on, for a report of a long wait (the all-reduce cannot tell who is missing). */
    private long awaitedBytes;

    private int awaitedRoot;
    private final Awaited everyRank = () -> "every rank to join the agreement on the call (root " + awaitedRoot
            + ", " + awaitedBytes + " bytes here): some rank has not called bcast on this communicator yet, or"
            + " has died";

    /** @param wait how this rank waits for the others, and for how long (this object's alone) */
    public CallAgreement(MpiComm comm, int rank, ProgressWait wait) {
        this.comm = comm;
        this.rank = rank;
        this.reduction = new TimedCollectives(comm, WORDS, wait);
        this.timeoutSeconds = wait.timeoutNs() / 1e9;
    }

    /**
     * Collective over the communicator: agrees on the call and returns the root's byte count, which
     * every rank then moves.
     *
     * @param bytes this rank's count times its element size
     * @throws MpiFailure on every rank alike, naming the mismatch, when the ranks name different
     *         roots, when a receiver passed fewer bytes than the root, when the root's bytes are not a
     *         whole number of some rank's elements, or under {@link CountRule#EQUAL} when any counts
     *         differ; nothing has been sent then
     * @return the root's bytes, or {@link #TIMED_OUT} when some rank did not join within the timeout
     *         (the communicator is unusable then: the all-reduce stays posted; see {@link #timeoutMessage})
     */
    public long agree(long bytes, ElementType type, int root, CountRule rule) throws MpiFailure {
        fill(words, rank, bytes, type, root);
        awaitedRoot = root;
        awaitedBytes = bytes;
        return reduce() == TIMED_OUT ? TIMED_OUT : verdict(words, rank, bytes, type, root, rule);
    }

    /**
     * This rank refused its own arguments: it still joins the call's all-reduce, so that every rank
     * fails this call at once and stays in step for the next one. Returns {@link #TIMED_OUT} when
     * some rank did not join; otherwise the caller throws its own error.
     */
    public long refuse(int root) throws MpiFailure {
        fillRefused(words, rank, root);
        awaitedRoot = root;
        awaitedBytes = 0;
        return reduce();
    }

    /** All-reduces {@link #words} in place; {@link #TIMED_OUT} when some rank never joined, else 0. */
    private long reduce() throws MpiFailure {
        return reduction.reduce(words, WORDS, everyRank) ? 0 : TIMED_OUT;
    }

    /** This rank's words before the reduction: what it passed, each where MAX keeps what the verdict needs. */
    static void fill(long[] w, int rank, long bytes, ElementType type, int root) {
        boolean isRoot = rank == root;
        w[REFUSED_BY] = 0;
        w[ROOT_MAX] = root;
        w[ROOT_MIN] = -root;
        w[ROOT_BYTES] = isRoot ? bytes : -1;
        w[ROOT_ELEMENT] = isRoot ? type.bytes() : -1;
        w[RECEIVER_MIN] = isRoot ? Long.MIN_VALUE : -(bytes << RANK_BITS | Math.min(rank, RANK_MASK));
        w[ELEMENT_MAX] = type.bytes();
        w[BYTES_MAX] = bytes;
        w[BYTES_MIN] = -bytes;
    }

    /** The words of a rank that refused its arguments: neutral everywhere but the refusal. */
    static void fillRefused(long[] w, int rank, int root) {
        w[ROOT_MAX] = Long.MIN_VALUE;
        w[ROOT_MIN] = Long.MIN_VALUE;
        w[ROOT_BYTES] = -1;
        w[ROOT_ELEMENT] = -1;
        w[RECEIVER_MIN] = Long.MIN_VALUE;
        w[ELEMENT_MAX] = 1;
        w[BYTES_MAX] = Long.MIN_VALUE;
        w[BYTES_MIN] = Long.MIN_VALUE;
        w[REFUSED_BY] = 1L + rank;
    }

    /** The root's byte count agreed in {@code w} (the all-reduced words), or the error every rank raises. */
    static long verdict(long[] w, int rank, long bytes, ElementType type, int root, CountRule rule) throws MpiFailure {
        if (w[REFUSED_BY] != 0) {
            throw MpiErrors.badArgument(where(rank) + "rank " + (w[REFUSED_BY] - 1)
                    + " refused the call (a bad argument" + " there, see its error); nothing was sent");
        }
        long maxRoot = w[ROOT_MAX];
        long minRoot = -w[ROOT_MIN];
        if (maxRoot != minRoot) {
            throw MpiErrors.rootsDisagree(where(rank) + "ranks disagree on the root: they passed roots from " + minRoot
                    + " to " + maxRoot + ", this rank passed " + root + "; nothing was sent");
        }
        long rootBytes = w[ROOT_BYTES];
        long rootElement = w[ROOT_ELEMENT];
        if (rule == CountRule.EQUAL && w[BYTES_MAX] != -w[BYTES_MIN]) {
            throw MpiErrors.badArgument(
                    where(rank) + "check mode: ranks disagree on the call (bytes from " + -w[BYTES_MIN]
                            + " to " + w[BYTES_MAX] + ", root " + root + "); this rank has " + bytes
                            + " bytes; nothing was sent");
        }
        if (w[RECEIVER_MIN] != Long.MIN_VALUE) {
            long key = -w[RECEIVER_MIN];
            long fewest = key >>> RANK_BITS;
            if (fewest < rootBytes) {
                String rootSends = "root " + root + " sends " + rootBytes + " bytes (" + rootBytes / rootElement
                        + " of its " + rootElement + "-byte elements)";
                if (rank != root && bytes < rootBytes) {
                    throw MpiErrors.truncated(where(rank) + "message truncated: " + rootSends
                            + " but this rank's count of " + bytes / type.bytes() + " " + type.mpiName()
                            + " holds only " + bytes + " bytes; nothing was sent");
                }
                throw MpiErrors.truncated(where(rank) + "message truncated on rank " + (key & RANK_MASK) + ": "
                        + rootSends + " but that rank's count holds only " + fewest + " bytes; nothing was sent");
            }
        }
        if (rootBytes % w[ELEMENT_MAX] != 0) {
            String mine = rootBytes % type.bytes() != 0
                    ? "this rank's " + type.mpiName() + " (" + type.bytes() + " bytes)"
                    : "another rank's " + w[ELEMENT_MAX] + "-byte datatype";
            throw MpiErrors.typesDisagree(
                    where(rank) + "datatype mismatch: root " + root + " sends " + rootBytes + " bytes of "
                            + rootElement + "-byte elements, not a whole number of the elements of " + mine
                            + "; nothing was sent");
        }
        return rootBytes;
    }

    /**
     * Why {@link #agree} returned {@link #TIMED_OUT}, naming the ranks that did not answer a roll
     * call: every rank that timed out sends each other rank an empty message and collects theirs
     * for a short window, so the ranks that are still there name the ones that are not. Failure path
     * only (allocates, waits up to {@link #ROLL_CALL_NS}).
     */
    public String timeoutMessage(long bytes, int root) throws MpiFailure {
        int size = comm.size();
        ByteBuffer empty = ByteBuffer.allocateDirect(1);
        MpiRequest[] calls = new MpiRequest[size];
        for (int r = 0; r < size; r++) {
            if (r != rank) {
                calls[r] = comm.newRequest();
                comm.iSend(empty, 0, r, ROLL_CALL_TAG, calls[r]);
            }
        }
        ProbedMessage probe = new ProbedMessage();
        boolean[] answered = new boolean[size];
        answered[rank] = true;
        int missing = size - 1;
        long deadline = System.nanoTime() + Math.min(ROLL_CALL_NS, reduction.timeoutNs());
        while (missing > 0 && System.nanoTime() < deadline) {
            if (!comm.iProbe(MpiComm.ANY_SOURCE, ROLL_CALL_TAG, probe)) {
                Thread.yield();
                continue;
            }
            int from = probe.source();
            comm.recv(empty, 0, from, ROLL_CALL_TAG);
            if (!answered[from]) {
                answered[from] = true;
                missing--;
            }
        }
        // A rank that never answers never takes ours either: free the requests, which MPI then
        // completes on its own, instead of leaving one per rank behind with each time-out.
        for (MpiRequest call : calls) {
            if (call != null) {
                call.free();
            }
        }
        StringBuilder absent = new StringBuilder();
        for (int r = 0, named = 0; r < size && named < 8; r++) {
            if (!answered[r]) {
                absent.append(named++ == 0 ? "" : ", ").append("rank ").append(r);
            }
        }
        String who = missing == 0
                ? "every rank answered a roll call afterwards, so some rank called something else"
                : "no answer to a roll call from " + absent + (missing > 8 ? " and " + (missing - 8) + " more" : "")
                        + ": it has not called bcast on this communicator, or has died";
        return where(rank) + "timed out after " + timeoutSeconds + " s agreeing on the call (root " + root + ", "
                + bytes + " bytes here): " + who;
    }

    private static String where(int rank) {
        return "hbcast bcast on rank " + rank + ": ";
    }
}
