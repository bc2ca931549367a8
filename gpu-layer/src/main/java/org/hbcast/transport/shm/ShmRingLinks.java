package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.agrona.MutableDirectBuffer;
import org.hbcast.engine.RingPipeline;
import org.hbcast.engine.RingRole;

/**
 * One rank's two links in the node's shared-memory ring: its own inbox (from the left neighbour) and
 * the right neighbour's inbox mapped as its outbox. Knows nothing of MPI: the caller exchanges the
 * inbox paths (an all-gather over the node communicator) and passes them in ring order.
 *
 * <pre>{@code
 * ShmInbox inbox = ShmInbox.create(SharedSegment.DEFAULT_DIRECTORY, nodeRank, 8, maxChunkBytes);
 * List<Path> paths = allGather(inbox.path());             // by the caller, in node-rank order
 * ShmRingLinks links = ShmRingLinks.connect(inbox, paths, nodeRank);
 * barrier();                                              // everybody has mapped its right neighbour
 * links.inbox().unlink();                                 // nothing left in /dev/shm from here on
 * }</pre>
 */
public final class ShmRingLinks implements AutoCloseable {
    private final ShmInbox inbox;
    private final ShmOutbox outbox;
    private final int ringSize;
    private final int position;

    private ShmRingLinks(final ShmInbox inbox, final ShmOutbox outbox, final int ringSize, final int position) {
        this.inbox = inbox;
        this.outbox = outbox;
        this.ringSize = ringSize;
        this.position = position;
    }

    /**
     * Maps the right neighbour's inbox. Ring positions are node ranks: {@code inboxPaths.get(i)} is the
     * inbox of node rank {@code i}, and {@code position} must be the rank that owns {@code inbox}.
     * On success the returned object owns {@code inbox}; on failure the caller still does.
     *
     * @throws IOException if the neighbour's inbox cannot be mapped or does not match this one
     */
    public static ShmRingLinks connect(final ShmInbox inbox, final List<Path> inboxPaths, final int position)
            throws IOException {
        Objects.requireNonNull(inbox, "inbox");
        final int ringSize = inboxPaths.size();
        if (position < 0 || position >= ringSize) {
            throw new IllegalArgumentException("position " + position + " outside ring of " + ringSize);
        }
        if (inbox.localRank() != position) {
            throw new IllegalArgumentException(
                    "inbox belongs to node rank " + inbox.localRank() + ", not to position " + position);
        }
        if (!sameFile(inboxPaths.get(position), inbox.path())) {
            throw new IllegalArgumentException("path " + position + " of the ring is " + inboxPaths.get(position)
                    + ", but this rank's inbox is " + inbox.path() + " (paths out of node-rank order?)");
        }
        if (ringSize == 1) {
            return new ShmRingLinks(inbox, null, 1, 0);
        }
        final int right = (position + 1) % ringSize;
        final int left = (position + ringSize - 1) % ringSize;
        final ShmOutbox outbox = ShmOutbox.open(inboxPaths.get(right), position, right);
        if (outbox.maxChunkBytes() != inbox.maxChunkBytes()) {
            final int theirs = outbox.maxChunkBytes();
            outbox.close();
            throw new IOException("node rank " + right + "'s inbox has " + theirs + "-byte slots, node rank " + position
                    + "'s has " + inbox.maxChunkBytes() + ": every rank of a node must use the same slot size");
        }
        inbox.connectFrom(left);
        return new ShmRingLinks(inbox, outbox, ringSize, position);
    }

    /** {@link #connect(ShmInbox, List, int)} for paths exchanged as strings. */
    public static ShmRingLinks connect(final ShmInbox inbox, final String[] inboxPaths, final int position)
            throws IOException {
        final List<Path> paths = new ArrayList<>(inboxPaths.length);
        for (final String path : inboxPaths) {
            paths.add(Path.of(path));
        }
        return connect(inbox, paths, position);
    }

    private static boolean sameFile(final Path a, final Path b) {
        return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }

    /** A pipeline over these links, to be reset for every broadcast. */
    public RingPipeline<MutableDirectBuffer> newPipeline() {
        return outbox == null ? RingPipeline.alone() : new RingPipeline<>(outbox, inbox);
    }

    /** This rank's role when the chain of a broadcast starts at node rank {@code start}. */
    public RingRole role(final int start) {
        return RingRole.of(ringSize, position, start);
    }

    /** This rank's inbox: the receiving end. */
    public ShmInbox inbox() {
        return inbox;
    }

    /** The right neighbour's inbox: the sending end; null in a ring of one. */
    public ShmOutbox outbox() {
        return outbox;
    }

    /** Ranks in the ring. */
    public int ringSize() {
        return ringSize;
    }

    /** This rank's position (node rank). */
    public int position() {
        return position;
    }

    /** Node rank of the left neighbour (this rank in a ring of one). */
    public int leftRank() {
        return (position + ringSize - 1) % ringSize;
    }

    /** Node rank of the right neighbour (this rank in a ring of one). */
    public int rightRank() {
        return (position + 1) % ringSize;
    }

    /** Unmaps both segments and removes this rank's inbox file if still there. */
    @Override
    public void close() throws IOException {
        try {
            if (outbox != null) {
                outbox.close();
            }
        } finally {
            inbox.close();
        }
    }
}
