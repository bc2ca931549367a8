package org.hbcast.mpi.port;

/**
 * What a probe found: the sender and the length in bytes of a message waiting to be received.
 * Caller-owned and filled by {@link MpiComm#iProbe}, so that a probe that finds something allocates
 * nothing beyond what the binding itself does, and one that finds nothing allocates nothing at all.
 */
public final class ProbedMessage {
    private int source = -1;
    private int bytes;

    /** The sender's rank in the probed communicator. */
    public int source() {
        return source;
    }

    /** The message's length in bytes. */
    public int bytes() {
        return bytes;
    }

    /** For bindings: records what the probe found. */
    public void set(int source, int bytes) {
        this.source = source;
        this.bytes = bytes;
    }
}
