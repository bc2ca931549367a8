package org.hbcast.transport.shm;

import org.agrona.concurrent.AtomicBuffer;
import org.hbcast.engine.RingLink;

/**
 * The abort word of the chunk-moving layouts (ring inboxes and the node fan-out): 0 while all
 * is well, else 1 + the node rank of the first failure, set once by compare-and-set so the first
 * reason sticks and every peer can fail fast naming it.
 */
final class AbortWord {
    private AbortWord() {}

    /** The node rank recorded at {@code offset}, or {@link RingLink#NOT_ABORTED}. */
    static int origin(final AtomicBuffer buffer, final int offset) {
        final int word = buffer.getIntVolatile(offset);
        return word == 0 ? RingLink.NOT_ABORTED : word - 1;
    }

    /** Records {@code originRank} at {@code offset} unless a failure is recorded already. */
    static void set(final AtomicBuffer buffer, final int offset, final int originRank) {
        buffer.compareAndSetInt(offset, 0, originRank + 1);
    }
}
