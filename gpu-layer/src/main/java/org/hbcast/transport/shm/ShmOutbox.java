package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.ChunkSender;

/**
 * The sending end of a shared-memory ring link: the right neighbour's inbox ({@link LinkLayout}),
 * mapped by this rank, into whose slots it copies chunks from host memory.
 *
 * <p>Only this object writes TAIL, so it keeps TAIL in a field and publishes it with ordered writes;
 * it re-reads HEAD (volatile) only when the credit it already knew of is used up.
 */
public final class ShmOutbox implements ChunkSender<MutableDirectBuffer>, AutoCloseable {
    private final SharedSegment segment;
    private final UnsafeBuffer buffer;
    private final int localRank;
    private final int rightRank;
    private final int slotCount;
    private final int slotBytes;
    private final LinkControl control;
    private long tail;
    private long knownHead;

    private ShmOutbox(
            final SharedSegment segment,
            final int localRank,
            final int rightRank,
            final int slotCount,
            final int slotBytes) {
        this.segment = segment;
        this.buffer = segment.buffer();
        this.localRank = localRank;
        this.rightRank = rightRank;
        this.slotCount = slotCount;
        this.slotBytes = slotBytes;
        this.control = new LinkControl(buffer, slotCount);
        this.tail = control.tail();
        this.knownHead = control.head();
    }

    /**
     * Maps the inbox at {@code inboxPath} of node rank {@code rightRank} as node rank {@code localRank},
     * after checking that it is an inbox of this layout version and really belongs to {@code rightRank}.
     */
    public static ShmOutbox open(final Path inboxPath, final int localRank, final int rightRank) throws IOException {
        final SharedSegment segment = SharedSegment.open(inboxPath);
        try {
            final UnsafeBuffer buffer = segment.buffer();
            final SegmentHeader.Geometry geometry = SegmentHeader.check(
                    buffer,
                    inboxPath,
                    LinkLayout.KIND,
                    rightRank,
                    owner -> "belongs to node rank " + owner + ", but the right neighbour of node rank " + localRank
                            + " is node rank " + rightRank,
                    found -> LinkLayout.segmentBytes(found.slotCount(), found.slotBytes()));
            final int slotCount = geometry.slotCount();
            final int slotBytes = geometry.slotBytes();
            final ShmOutbox outbox = new ShmOutbox(segment, localRank, rightRank, slotCount, slotBytes);
            if (outbox.tail < outbox.knownHead || outbox.tail - outbox.knownHead > slotCount) {
                throw new IOException("ring inbox " + inboxPath + " has inconsistent counters: tail " + outbox.tail
                        + ", head " + outbox.knownHead);
            }
            return outbox;
        } catch (final IOException | RuntimeException ex) {
            segment.close();
            throw ex;
        }
    }

    @Override
    public int peerRank() {
        return rightRank;
    }

    @Override
    public int localRank() {
        return localRank;
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    @Override
    public int maxChunkBytes() {
        return slotBytes;
    }

    @Override
    public boolean hasCredit() {
        if (tail - knownHead < slotCount) {
            return true;
        }
        knownHead = control.head();
        return tail - knownHead < slotCount;
    }

    @Override
    public boolean trySend(final MutableDirectBuffer source, final long srcOffset, final int length) {
        if (length <= 0 || length > slotBytes) {
            throw new IllegalArgumentException("chunk length must be within [1, " + slotBytes + "]: " + length);
        }
        if (!hasCredit()) {
            return false;
        }
        buffer.putBytes(LinkLayout.slotOffset(tail, slotCount, slotBytes), source, Math.toIntExact(srcOffset), length);
        post(length);
        return true;
    }

    /**
     * Publishes the next chunk, of {@code length} bytes, whose data the caller has already put where
     * the receiver will look (a device link's slot or the receiver's own buffer): writes its length,
     * then advances TAIL. Only when {@link #hasCredit()}; the counters are all a device link borrows
     * from this inbox.
     */
    public void post(final int length) {
        // The slot and its length are visible before the receiver sees the new tail.
        control.post(tail++, length);
    }

    /** The receiver's HEAD counter (chunks consumed), read volatile. */
    /**
     * Takes the counters up from the control block: for an inbox that several ranks write in turn (a
     * GPU group's copier changes with the call's root), before this rank's first post of a call. Only
     * once the previous writer's posts are complete and visible (the call's start is a collective).
     */
    public void rejoin() {
        tail = control.tail();
        knownHead = control.head();
    }

    /** Address in this process of the first slot (page-aligned): chunk {@code s} is at {@code s mod slotCount} slots on. */
    public long slotsAddress() {
        return buffer.addressOffset() + LinkLayout.SLOTS_OFFSET;
    }

    public long head() {
        return control.head();
    }

    @Override
    public long posted() {
        return tail;
    }

    @Override
    public int abortOrigin() {
        return control.abortOrigin();
    }

    @Override
    public void abort(final int originRank) {
        control.abort(originRank);
    }

    /** Path of the mapped inbox. */
    public Path path() {
        return segment.path();
    }

    /** Unmaps the right neighbour's inbox (its owner removes the file). */
    @Override
    public void close() throws IOException {
        segment.close();
    }

    @Override
    public String toString() {
        return "ShmOutbox{rank " + localRank + " to " + rightRank + ", " + slotCount + " x " + slotBytes
                + " bytes, tail " + tail + ", " + segment.path() + '}';
    }
}
