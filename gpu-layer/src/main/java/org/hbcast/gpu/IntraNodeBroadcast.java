package org.hbcast.gpu;

/**
 * One rank's part of a broadcast inside its node, whatever carries it (the chunk ring, the
 * shared-memory fan-out): a caller that also runs the inter-node tree drives both from one loop,
 * feeding chunks in as the tree delivers them.
 */
public interface IntraNodeBroadcast
{
    /**
     * Moves what can move without waiting.
     *
     * @return units of work done, 0 when waiting on a peer
     */
    int progress();

    /** True once this rank's part of the current call is complete. */
    boolean isDone();

    /** Only on a rank started as fed: it may pass on chunks {@code [0, chunks)}. Never moves backwards. */
    void markAvailable(int chunks);

    /** Marks the call failed by this rank so the node's other ranks fail fast instead of timing out. */
    void abort();

    /** What this rank waits for, for a timeout message. */
    String describeWait();
}
