package org.hbcast;

import mpi.MPIException;
import org.hbcast.gpu.shm.CallBoard;

/**
 * Open MPI's contract for counts on a node of its own (see {@link CountRule#ROOT}), at the price of
 * a few shared-memory words per call: the root posts its byte count and element size on the node's
 * {@link CallBoard} and goes on; every other rank reads the header before it moves anything and runs
 * the root's call. A receiver that cannot take the root's bytes (it passed fewer, a different root,
 * a datatype they do not divide into, or a bad argument) still takes part into scratch memory, so
 * the others finish, and then fails with the reason: only it fails, as with Open MPI.
 *
 * <p>Allocates only for an error (messages, scratch memory).
 */
final class CallHeaders {
    /** What {@link #exchange} found for this rank. */
    enum Outcome {
        /** This rank posted the header: it is the root and sends its own bytes. */
        ROOT,
        /** This rank receives the root's bytes ({@link #rootBytes()}) into its own buffer. */
        RECEIVE,
        /** This rank must take part into scratch memory and then fail with {@link #problem()}. */
        SCRATCH,
        /** The call was refused by its claimer: nothing moves, every rank fails with {@link #problem()}. */
        REFUSED,
        /** No header came (or no room) within the timeout: the instance is unusable, see {@link #problem()}. */
        TIMED_OUT
    }

    private final CallBoard board;
    private final int rank;
    private final ProgressWait wait;
    private final double timeoutSeconds;
    private long call;
    private long rootBytes;
    private int root;
    private String problem;

    CallHeaders(CallBoard board, int rank, long timeoutNs) {
        this.board = board;
        this.rank = rank;
        this.wait = ProgressWait.backingOff(timeoutNs);
        this.timeoutSeconds = timeoutNs / 1e9;
    }

    /**
     * This rank's side of the next call's header.
     *
     * @param refused this rank's argument error, or null when its arguments are good
     * @param root the root this rank passed (any value when {@code refused} says it is out of range)
     * @param bytes this rank's byte count (when {@code refused} is null)
     * @param type this rank's element type (when {@code refused} is null)
     */
    Outcome exchange(String refused, int root, boolean rootInRange, long bytes, ElementType type) {
        long c = ++call;
        problem = null;
        boolean claims = rootInRange ? root == rank : refused != null;
        if (claims) {
            wait.reset();
            while (!board.hasRoom(c)) {
                if (wait.timedOut(0)) {
                    problem = where() + "timed out after " + timeoutSeconds + " s waiting for node rank "
                            + board.slowestReader() + " to read the header of call " + (c - CallBoard.ENTRIES)
                            + ": it is " + CallBoard.ENTRIES + " calls behind, or has died";
                    return Outcome.TIMED_OUT;
                }
            }
            if (board.claim(c)) {
                board.post(c, refused != null ? CallBoard.REFUSED : bytes, rank, refused != null ? 0 : type.bytes());
                board.markRead(c);
                if (refused != null) {
                    problem = refused;
                    return Outcome.REFUSED;
                }
                this.root = rank;
                this.rootBytes = bytes;
                return Outcome.ROOT;
            }
        }
        wait.reset();
        board.markWaiting(c, rootInRange ? root : -1);
        while (!board.isPosted(c)) {
            if (rootInRange && root != rank && board.waitsForAnother(root, c)) {
                // The root this rank names waits for another root itself: nobody will post this call.
                if (board.claim(c)) {
                    board.post(c, CallBoard.NO_ROOT, rank, root);
                }
                continue;
            }
            if (wait.timedOut(0)) {
                problem = where() + "timed out after " + timeoutSeconds + " s waiting for the header of call " + c
                        + " from " + (rootInRange ? "root " + root : "its root") + ": the root has not called bcast on"
                        + " this communicator, or has died";
                return Outcome.TIMED_OUT;
            }
        }
        long posted = board.bytes(c);
        int claimer = board.rank(c);
        int rootElement = board.elementBytes(c);
        board.markRead(c);
        this.root = claimer;
        this.rootBytes = posted;
        if (posted == CallBoard.NO_ROOT) {
            problem = refused != null ? refused : where() + "ranks disagree on the root: in call " + c + " rank " + claimer
                    + " passed root " + rootElement + ", which passed another root itself; no rank sent anything";
            return Outcome.REFUSED;
        }
        if (posted == CallBoard.REFUSED) {
            problem = refused != null ? refused : where() + "rank " + claimer + " refused call " + c + " (a bad argument"
                    + " there, see its error); nothing was sent";
            return Outcome.REFUSED;
        }
        problem = refused != null ? refused : check(c, root, bytes, type, claimer, posted, rootElement);
        return problem == null ? Outcome.RECEIVE : Outcome.SCRATCH;
    }

    private String check(long c, int myRoot, long bytes, ElementType type, int rootRank, long posted, int rootElement) {
        if (rootRank != myRoot) {
            return where() + "ranks disagree on the root: " + sends(rootRank, posted, rootElement) + " in call " + c
                    + " but this rank passed root " + myRoot + "; this rank took part and dropped the data";
        }
        if (posted > bytes) {
            return where() + "message truncated: " + sends(rootRank, posted, rootElement) + " but this rank's count of "
                    + bytes / type.bytes() + " " + type + " holds only " + bytes + " bytes; this rank took part and"
                    + " dropped the data";
        }
        if (posted % type.bytes() != 0) {
            return where() + "datatype mismatch: " + sends(rootRank, posted, rootElement) + ", not a whole number of"
                    + " this rank's " + type + " (" + type.bytes() + " bytes); this rank took part and dropped the data";
        }
        return null;
    }

    private static String sends(int rootRank, long posted, int rootElement) {
        return "root " + rootRank + " sends " + posted + " bytes (" + posted / Math.max(rootElement, 1) + " of its "
                + rootElement + "-byte elements)";
    }

    /** The root's bytes of the call {@link #exchange} just read or posted. */
    long rootBytes() {
        return rootBytes;
    }

    /** The rank that posted the call's header. */
    int root() {
        return root;
    }

    /** Why this rank fails the call (for {@link Outcome#SCRATCH}, {@link Outcome#REFUSED}, {@link Outcome#TIMED_OUT}). */
    String problem() {
        return problem;
    }

    private String where() {
        return "hbcast bcast on rank " + rank + ": ";
    }
}
