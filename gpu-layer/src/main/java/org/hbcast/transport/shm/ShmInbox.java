package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.ChunkReceiver;

/**
 * The receiving end of a shared-memory ring link: this rank's inbox segment ({@link LinkLayout}),
 * which it creates and owns, and from whose slots it copies chunks into host memory.
 *
 * <p>Only this object writes HEAD, so it keeps HEAD in a field and publishes it with ordered writes;
 * it re-reads TAIL (volatile) only once the chunks it already knew of are consumed.
 */
public final class ShmInbox implements ChunkReceiver<MutableDirectBuffer>, AutoCloseable {
    private final SharedSegment segment;
    private final UnsafeBuffer buffer;
    private final int ownerRank;
    private final int slotCount;
    private final int slotBytes;
    private final LinkControl control;
    private int leftRank = -1;
    private long head;
    private long knownTail;

    private ShmInbox(final SharedSegment segment, final int ownerRank, final int slotCount, final int slotBytes) {
        this.segment = segment;
        this.buffer = segment.buffer();
        this.ownerRank = ownerRank;
        this.slotCount = slotCount;
        this.slotBytes = slotBytes;
        this.control = new LinkControl(buffer, slotCount);
    }

    /**
     * Creates the inbox of node rank {@code ownerRank} in {@code directory}, with
     * {@link LinkLayout#DEFAULT_SLOT_COUNT} slots that each hold a chunk of up to {@code maxChunkBytes}.
     */
    public static ShmInbox create(final Path directory, final int ownerRank, final int maxChunkBytes)
            throws IOException {
        return create(directory, ownerRank, LinkLayout.DEFAULT_SLOT_COUNT, maxChunkBytes);
    }

    /**
     * Creates the inbox of node rank {@code ownerRank} in {@code directory}, with {@code slotCount}
     * slots that each hold a chunk of up to {@code maxChunkBytes} (rounded up to 64).
     */
    public static ShmInbox create(
            final Path directory, final int ownerRank, final int slotCount, final int maxChunkBytes)
            throws IOException {
        if (ownerRank < 0) {
            throw new IllegalArgumentException("owner rank must not be negative: " + ownerRank);
        }
        final int slotBytes = LinkLayout.slotBytesFor(maxChunkBytes);
        final SharedSegment segment = SharedSegment.create(directory, LinkLayout.segmentBytes(slotCount, slotBytes));
        final UnsafeBuffer buffer = segment.buffer();
        SegmentHeader.write(buffer, LinkLayout.KIND, slotCount, slotBytes, ownerRank);
        return new ShmInbox(segment, ownerRank, slotCount, slotBytes);
    }

    /**
     * Records who the left neighbour is, for error messages; set when the ring is connected (by the
     * shared-memory ring and by the CUDA ring between GPU leaders, whose control block this is).
     */
    public void connectFrom(final int leftRank) {
        this.leftRank = leftRank;
    }

    /** Path of the segment, to hand to the left neighbour. */
    public Path path() {
        return segment.path();
    }

    /** The link's control fields, for a transport whose slots live elsewhere (device memory). */
    public LinkControl control() {
        return control;
    }

    /** The segment, for inspection. */
    public SharedSegment segment() {
        return segment;
    }

    /** Removes the segment's name once the left neighbour has mapped it. */
    public void unlink() throws IOException {
        segment.unlink();
    }

    @Override
    public int peerRank() {
        return leftRank;
    }

    @Override
    public int localRank() {
        return ownerRank;
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    @Override
    public int maxChunkBytes() {
        return slotBytes;
    }

    /** Address in this process of the first slot (page-aligned): chunk {@code s} is at {@code s mod slotCount} slots on. */
    public long slotsAddress() {
        return buffer.addressOffset() + LinkLayout.SLOTS_OFFSET;
    }

    @Override
    public boolean hasChunk() {
        if (head < knownTail) {
            return true;
        }
        knownTail = control.tail();
        return head < knownTail;
    }

    @Override
    public int chunkLength() {
        return control.length(head);
    }

    @Override
    public MutableDirectBuffer chunkMemory() {
        return buffer;
    }

    @Override
    public long chunkOffset() {
        return LinkLayout.slotOffset(head, slotCount, slotBytes);
    }

    @Override
    public void copyChunk(final MutableDirectBuffer dest, final long dstOffset, final int length) {
        if (length <= 0 || length > slotBytes) {
            throw new IllegalArgumentException("chunk length must be within [1, " + slotBytes + "]: " + length);
        }
        dest.putBytes(Math.toIntExact(dstOffset), buffer, LinkLayout.slotOffset(head, slotCount, slotBytes), length);
    }

    @Override
    public void release() {
        // Ordered: our reads of the slot happen before the sender may see it free and overwrite it.
        control.release(++head);
    }

    @Override
    public long consumed() {
        return head;
    }

    @Override
    public int abortOrigin() {
        return control.abortOrigin();
    }

    @Override
    public void abort(final int originRank) {
        control.abort(originRank);
    }

    /** Unmaps the inbox and removes its file if still there. */
    @Override
    public void close() throws IOException {
        segment.close();
    }

    @Override
    public String toString() {
        return "ShmInbox{rank " + ownerRank + " from " + leftRank + ", " + slotCount + " x " + slotBytes
                + " bytes, head " + head + ", " + segment.path() + '}';
    }
}
