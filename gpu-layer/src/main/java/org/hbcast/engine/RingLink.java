package org.hbcast.engine;

/**
 * What both ends of a link between two ring neighbours share: who is on the other side, and the
 * link's abort word, which either side sets when it fails so that the other fails fast instead of
 * waiting for its timeout.
 *
 * <p>Links whose copies complete asynchronously (device memory) finish them in {@link #poll()}; the
 * pipeline polls every round and is not done until {@link #isSettled()}.
 */
public interface RingLink {
    /** Value of {@link #abortOrigin()} while nobody has aborted. */
    int NOT_ABORTED = -1;

    /** Node rank of the process at the other end of this link. */
    int peerRank();

    /** Node rank of this end (the rank that owns this object). */
    int localRank();

    /**
     * The node rank whose failure aborted this link, or {@link #NOT_ABORTED}. Sticky: a ring that
     * has been aborted stays aborted, since its counters no longer agree.
     */
    int abortOrigin();

    /**
     * Marks the link aborted on behalf of {@code originRank} (this rank, or the rank whose abort is
     * being passed along). The first origin recorded wins.
     */
    void abort(int originRank);

    /**
     * Completes copies started earlier and publishes them to the peer. Returns how many completed.
     * Links that copy synchronously complete inside the call that starts the copy and return 0.
     */
    default int poll() {
        return 0;
    }

    /** True when no copy started on this link is still outstanding. */
    default boolean isSettled() {
        return true;
    }
}
