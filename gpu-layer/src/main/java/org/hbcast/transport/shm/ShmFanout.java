package org.hbcast.transport.shm;

import static org.hbcast.transport.shm.FanoutLayout.ABORT_OFFSET;
import static org.hbcast.transport.shm.FanoutLayout.TAIL_OFFSET;

import java.io.IOException;
import java.nio.file.Path;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.FanoutLink;
import org.hbcast.engine.FanoutPipeline;
import org.hbcast.engine.RingLink;

/**
 * The shared-memory transport of a node's fan-out: one rank's mapping of the node's fan-out segment
 * ({@link FanoutLayout}) as the engine's {@link FanoutLink}, with the engine's {@link FanoutPipeline}
 * over it ({@link #pipeline()}). Copies are synchronous: a post or take is complete when it returns.
 *
 * <p>Per call one writer copies chunks into the slots and every other rank copies them out, each at its
 * own pace, with the writer held back only by the slowest reader.
 */
public final class ShmFanout implements FanoutLink<MutableDirectBuffer>, AutoCloseable {
    private final SharedSegment segment;
    private final UnsafeBuffer shm;
    private final int position;
    private final int participants;
    private final int slotCount;
    private final int slotBytes;
    private final int headOffset;

    private final FanoutPipeline<MutableDirectBuffer> pipeline;

    private ShmFanout(final SharedSegment segment, final int position) {
        this.segment = segment;
        this.shm = segment.buffer();
        this.position = position;
        this.participants = shm.getInt(SegmentHeader.PARTY_OFFSET);
        this.slotCount = shm.getInt(SegmentHeader.SLOT_COUNT_OFFSET);
        this.slotBytes = shm.getInt(SegmentHeader.SLOT_BYTES_OFFSET);
        this.headOffset = FanoutLayout.headOffset(position);
        this.pipeline = new FanoutPipeline<>(this);
    }

    /**
     * Creates the segment of a node of {@code participants} ranks, as node rank {@code position},
     * with {@code slotCount} slots that hold chunks of up to {@code maxChunkBytes} (rounded up to 64).
     * Its pages are not yet in this process's page table: {@link #loadPages} puts them there once the
     * other ranks may map it, so that all fault theirs in at once.
     */
    public static ShmFanout create(
            final Path directory,
            final int position,
            final int participants,
            final int slotCount,
            final int maxChunkBytes)
            throws IOException {
        final int slotBytes = LinkLayout.slotBytesFor(maxChunkBytes);
        final int bytes = FanoutLayout.segmentBytes(participants, slotCount, slotBytes);
        checkPosition(position, participants);
        final SharedSegment segment = SharedSegment.create(directory, bytes);
        final UnsafeBuffer shm = segment.buffer();
        SegmentHeader.write(shm, FanoutLayout.KIND, slotCount, slotBytes, participants);
        return new ShmFanout(segment, position);
    }

    /**
     * Maps a segment another rank of the node created, as node rank {@code position} of
     * {@code participants}, after checking that its header describes such a node.
     */
    public static ShmFanout open(final Path path, final int position, final int participants) throws IOException {
        checkPosition(position, participants);
        final SharedSegment segment = SharedSegment.open(path);
        try {
            final UnsafeBuffer shm = segment.buffer();
            SegmentHeader.check(
                    shm,
                    path,
                    FanoutLayout.KIND,
                    participants,
                    found -> "serves " + found + " ranks, expected " + participants,
                    found -> FanoutLayout.segmentBytes(found.party(), found.slotCount(), found.slotBytes()));
            segment.loadPages();
            return new ShmFanout(segment, position);
        } catch (final IOException | RuntimeException ex) {
            segment.close();
            throw ex instanceof IOException ? (IOException) ex : new IOException(path + ": " + ex.getMessage(), ex);
        }
    }

    private static void checkPosition(final int position, final int participants) {
        if (position < 0 || position >= participants) {
            throw new IllegalArgumentException("node rank " + position + " outside [0, " + participants + ")");
        }
    }

    @Override
    public int position() {
        return position;
    }

    @Override
    public int slotCount() {
        return slotCount;
    }

    @Override
    public long posted() {
        return shm.getLongVolatile(TAIL_OFFSET);
    }

    @Override
    public long consumed(final int rank) {
        return shm.getLongVolatile(FanoutLayout.headOffset(rank));
    }

    @Override
    public void post(final long sequence, final MutableDirectBuffer source, final long offset, final int length) {
        shm.putBytes(
                FanoutLayout.slotOffset(participants, sequence, slotCount, slotBytes), source, (int) offset, length);
        // Ordered: the slot's bytes are visible before readers can see the chunk posted.
        shm.putLongOrdered(TAIL_OFFSET, sequence + 1);
    }

    @Override
    public void take(final long sequence, final MutableDirectBuffer dest, final long offset, final int length) {
        dest.putBytes((int) offset, shm, FanoutLayout.slotOffset(participants, sequence, slotCount, slotBytes), length);
        // Ordered: our reads of the slot happen before the writer may see it free and reuse it.
        shm.putLongOrdered(headOffset, sequence + 1);
    }

    @Override
    public void consumeTo(final long sequence) {
        shm.putLongOrdered(headOffset, sequence);
    }

    @Override
    public void abort(final int originRank) {
        AbortWord.set(shm, ABORT_OFFSET, originRank);
    }

    /** The node rank whose failure aborted the fan-out, or {@link RingLink#NOT_ABORTED}. */
    @Override
    public int abortOrigin() {
        return AbortWord.origin(shm, ABORT_OFFSET);
    }

    /** The engine's pipeline over this link: one per rank, for every call of the node's fan-out. */
    public FanoutPipeline<MutableDirectBuffer> pipeline() {
        return pipeline;
    }

    /**
     * Puts every page of the creator's mapping in its page table ({@link SharedSegment#loadPages}),
     * as {@link #open} does for the others' (one node x 4, first create: the creator alone faulting in
     * its 8 MiB before the others began took 60-70 ms of the fan-out's 130-150).
     */
    public ShmFanout loadPages() {
        segment.loadPages();
        return this;
    }

    /** The segment's path, to hand to the other ranks of the node. */
    public Path path() {
        return segment.path();
    }

    /** Removes the segment's name once every rank has mapped it. */
    public void unlink() throws IOException {
        segment.unlink();
    }

    /** Largest chunk a slot holds. */
    @Override
    public int maxChunkBytes() {
        return slotBytes;
    }

    /** Node ranks served. */
    @Override
    public int participants() {
        return participants;
    }

    /** Unmaps the segment (and removes its name if this rank created it and it is still there). */
    @Override
    public void close() throws IOException {
        segment.close();
    }

    @Override
    public String toString() {
        return "ShmFanout{node rank " + position + " of " + participants + ", " + slotCount + " x " + slotBytes + " B, "
                + segment + '}';
    }
}
