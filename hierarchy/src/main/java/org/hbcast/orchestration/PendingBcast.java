package org.hbcast.orchestration;

import org.hbcast.call.ElementType;
import org.hbcast.mpi.port.MpiFailure;

/**
 * One non-blocking host broadcast of an instance, from {@code iBcast} until the program has seen it
 * complete: its arguments, how far it has got and how it ended. Slots are made once per instance
 * ({@link RequestQueue}) and reused only after the program saw the call complete, so an
 * {@code iBcast} allocates nothing.
 */
public final class PendingBcast {
    /** How far a call has got; only the queue's first call is past {@link #QUEUED}. */
    enum Phase {
        /** Waiting for the calls issued before it. */
        QUEUED,
        /** Arguments bound, waiting for its header. */
        OPENED,
        /** Its plan's stages are running. */
        STARTED,
        /** Complete, or failed with {@link #failure}: the buffer is the program's again. */
        DONE
    }

    private final int index;
    /** Read by the program's thread while a progress thread completes the call. */
    private volatile Phase phase = Phase.DONE;
    /** Whether the slot stands for a call the program has not yet seen complete. */
    private boolean held;

    private MpiFailure failure;

    Object buf;
    int count;
    ElementType type;
    String unsupported;
    int root;

    PendingBcast(int index) {
        this.index = index;
    }

    /** Where this slot is in its instance's queue (the API keeps its request objects by it). */
    public int index() {
        return index;
    }

    /** True once the call is complete or failed: the program may use its buffer again. */
    public boolean isDone() {
        return phase == Phase.DONE;
    }

    Phase phase() {
        return phase;
    }

    void queue(Object buf, int count, ElementType type, String unsupported, int root) {
        this.buf = buf;
        this.count = count;
        this.type = type;
        this.unsupported = unsupported;
        this.root = root;
        failure = null;
        held = true;
        phase = Phase.QUEUED;
    }

    void phase(Phase next) {
        phase = next;
    }

    /** Ends the call; {@code why} is null when it succeeded. Drops the program's buffer. */
    void done(MpiFailure why) {
        failure = why;
        buf = null;
        phase = Phase.DONE;
    }

    /** How the finished call failed, or null. */
    MpiFailure failure() {
        return failure;
    }

    /** Frees the slot once the program saw the call complete; it stays done until reused. False when already free. */
    boolean free() {
        if (!held || phase != Phase.DONE) {
            return false;
        }
        held = false;
        failure = null;
        return true;
    }
}
