package org.hbcast.transport;

import java.io.IOException;

/**
 * The set-up lifecycle every node transport follows (the shared-memory ring, the fan-out, the call
 * board, the GPU groups), after NCCL's {@code ncclTransport}: an implementation holds what its
 * transport needs to connect (this rank's place in the node, slots and their size), makes this
 * rank's part, says what other ranks need to attach to it, attaches to theirs and lets the names go.
 * Closing the connected transport frees it.
 *
 * <p>One set-up path drives every transport the same way, over the node: {@link #setUp} on every
 * rank, agree that all succeeded, all-gather the {@link #descriptor}s, {@link #connect}, agree again,
 * {@link #unlink}. Knows nothing of MPI: that path carries the descriptors.
 *
 * @param <P> this rank's part between set-up and connect
 * @param <T> the connected transport, which owns this rank's part
 */
public interface NodeTransport<P extends AutoCloseable, T extends AutoCloseable> {
    /** Most bytes of a descriptor, so that the set-up path can gather them in fixed-size records. */
    int DESCRIPTOR_BYTES = 512;

    /** The transport as errors name it ("the node's fan-out segment"). */
    String name();

    /** Makes this rank's part, or returns null where this rank makes none (a node's segment has one maker). */
    P setUp() throws IOException;

    /** What the node's other ranks need to attach to {@code part} (a segment's path): at most {@link #DESCRIPTOR_BYTES}. */
    String descriptor(P part);

    /**
     * Attaches to the node's parts: {@code descriptors[p]} is node rank {@code p}'s ("" where it made
     * none). On success the result owns {@code part}; on failure the caller still does.
     */
    T connect(P part, String[] descriptors) throws IOException;

    /** Removes the names of this rank's part once every rank has connected, so that none outlives a crash. */
    void unlink(P part) throws IOException;
}
