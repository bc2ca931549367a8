package org.hbcast.transport.shm;

import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.RingAbortedException;
import org.hbcast.engine.RingLink;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;

import java.io.IOException;
import java.nio.file.Path;

import static org.hbcast.transport.shm.FanoutLayout.ABORT_OFFSET;
import static org.hbcast.transport.shm.FanoutLayout.MAGIC;
import static org.hbcast.transport.shm.FanoutLayout.MAGIC_OFFSET;
import static org.hbcast.transport.shm.FanoutLayout.PARTICIPANTS_OFFSET;
import static org.hbcast.transport.shm.FanoutLayout.SLOT_BYTES_OFFSET;
import static org.hbcast.transport.shm.FanoutLayout.SLOT_COUNT_OFFSET;
import static org.hbcast.transport.shm.FanoutLayout.TAIL_OFFSET;
import static org.hbcast.transport.shm.FanoutLayout.VERSION;
import static org.hbcast.transport.shm.FanoutLayout.VERSION_OFFSET;

/**
 * One rank's view of its node's fan-out segment ({@link FanoutLayout}): per call one writer copies
 * chunks into the slots and every other rank copies them out, each at its own pace, with the writer
 * held back only by the slowest reader.
 *
 * <p>A {@link Stage} like the ring: {@link #startWriter}, {@link #startFedWriter} (a leader whose
 * chunks arrive from the tree and are released by {@link #feed}) or {@link #startReader}, then
 * {@link #progress()} until {@link #isDone()}. Every rank of the node must take part in every call,
 * in the same order, since sequences run on over the life of the segment. Allocation-free per call.
 */
public final class ShmFanout implements Stage, AutoCloseable
{
    private final SharedSegment segment;
    private final UnsafeBuffer shm;
    private final int position;
    private final int participants;
    private final int slotCount;
    private final int slotBytes;
    private final int headOffset;

    private long base;
    private boolean writer;
    private int writerPosition;
    private MutableDirectBuffer memory;
    private long totalBytes;
    private int chunkBytes;
    private int chunkCount;
    private boolean fed;
    private int available;
    private int done;
    private long knownTail;
    private long knownMinHead;
    private int slowestReader;
    private boolean aborted;

    private ShmFanout(final SharedSegment segment, final int position)
    {
        this.segment = segment;
        this.shm = segment.buffer();
        this.position = position;
        this.participants = shm.getInt(PARTICIPANTS_OFFSET);
        this.slotCount = shm.getInt(SLOT_COUNT_OFFSET);
        this.slotBytes = shm.getInt(SLOT_BYTES_OFFSET);
        this.headOffset = FanoutLayout.headOffset(position);
    }

    /**
     * Creates the segment of a node of {@code participants} ranks, as node rank {@code position},
     * with {@code slotCount} slots that hold chunks of up to {@code maxChunkBytes} (rounded up to 64).
     */
    public static ShmFanout create(
        final Path directory, final int position, final int participants, final int slotCount, final int maxChunkBytes)
        throws IOException
    {
        final int slotBytes = InboxLayout.slotBytesFor(maxChunkBytes);
        final int bytes = FanoutLayout.segmentBytes(participants, slotCount, slotBytes);
        checkPosition(position, participants);
        final SharedSegment segment = SharedSegment.create(directory, bytes);
        final UnsafeBuffer shm = segment.buffer();
        shm.putInt(VERSION_OFFSET, VERSION);
        shm.putInt(SLOT_COUNT_OFFSET, slotCount);
        shm.putInt(SLOT_BYTES_OFFSET, slotBytes);
        shm.putInt(PARTICIPANTS_OFFSET, participants);
        shm.putLongOrdered(MAGIC_OFFSET, MAGIC);
        return new ShmFanout(segment, position);
    }

    /**
     * Maps a segment another rank of the node created, as node rank {@code position} of
     * {@code participants}, after checking that its header describes such a node.
     */
    public static ShmFanout open(final Path path, final int position, final int participants) throws IOException
    {
        checkPosition(position, participants);
        final SharedSegment segment = SharedSegment.open(path);
        try
        {
            final UnsafeBuffer shm = segment.buffer();
            if (shm.capacity() < FanoutLayout.HEADS_OFFSET || shm.getLongVolatile(MAGIC_OFFSET) != MAGIC)
            {
                throw new IOException(path + " is not a fan-out segment (bad magic)");
            }
            if (shm.getInt(VERSION_OFFSET) != VERSION)
            {
                throw new IOException(path + " has fan-out layout version " + shm.getInt(VERSION_OFFSET) +
                    ", expected " + VERSION);
            }
            if (shm.getInt(PARTICIPANTS_OFFSET) != participants)
            {
                throw new IOException(path + " serves " + shm.getInt(PARTICIPANTS_OFFSET) + " ranks, expected " +
                    participants);
            }
            final int expected = FanoutLayout.segmentBytes(
                participants, shm.getInt(SLOT_COUNT_OFFSET), shm.getInt(SLOT_BYTES_OFFSET));
            if (expected != shm.capacity())
            {
                throw new IOException(path + " has " + shm.capacity() + " bytes, its header says " + expected);
            }
            return new ShmFanout(segment, position);
        }
        catch (final IOException | RuntimeException ex)
        {
            segment.close();
            throw ex instanceof IOException ? (IOException)ex : new IOException(path + ": " + ex.getMessage(), ex);
        }
    }

    private static void checkPosition(final int position, final int participants)
    {
        if (position < 0 || position >= participants)
        {
            throw new IllegalArgumentException("node rank " + position + " outside [0, " + participants + ")");
        }
    }

    /** Starts a call in which this rank holds all {@code totalBytes} of {@code memory} and writes them. */
    public void startWriter(final MutableDirectBuffer memory, final long totalBytes, final int chunkBytes)
    {
        start(true, position, memory, totalBytes, chunkBytes);
        fed = false;
        available = chunkCount;
    }

    /** Starts a call in which this rank writes chunks as {@link #feed} releases them. */
    public void startFedWriter(final MutableDirectBuffer memory, final long totalBytes, final int chunkBytes)
    {
        start(true, position, memory, totalBytes, chunkBytes);
        fed = true;
        available = 0;
    }

    /** Starts a call in which node rank {@code writerPosition} writes and this rank reads into memory. */
    public void startReader(
        final int writerPosition, final MutableDirectBuffer memory, final long totalBytes, final int chunkBytes)
    {
        checkPosition(writerPosition, participants);
        if (writerPosition == position)
        {
            throw new IllegalArgumentException("node rank " + position + " cannot read its own writes");
        }
        start(false, writerPosition, memory, totalBytes, chunkBytes);
        fed = false;
    }

    private void start(
        final boolean writer,
        final int writerPosition,
        final MutableDirectBuffer memory,
        final long totalBytes,
        final int chunkBytes)
    {
        if (aborted)
        {
            throw new IllegalStateException("fan-out aborted earlier; it cannot be reused");
        }
        if (chunkBytes > slotBytes)
        {
            throw new IllegalArgumentException("chunks of " + chunkBytes + " bytes do not fit the fan-out's slots of " +
                slotBytes);
        }
        if (totalBytes < 0 || totalBytes > memory.capacity())
        {
            throw new IllegalArgumentException("message of " + totalBytes + " bytes does not fit memory of " +
                memory.capacity());
        }
        final int chunks = Chunks.count(totalBytes, chunkBytes);
        base += chunkCount;
        this.writer = writer;
        this.writerPosition = writerPosition;
        this.memory = memory;
        this.totalBytes = totalBytes;
        this.chunkBytes = chunkBytes;
        this.chunkCount = chunks;
        this.done = 0;
        this.knownTail = base;
        // A lower bound, not a guess: the previous writer only ever ran S chunks ahead of the slowest
        // reader, so no head is below base - S; the first chunk therefore re-reads the heads.
        this.knownMinHead = base - slotCount;
    }

    /** A fed writer may post chunks {@code [0, chunks)}. */
    @Override
    public void feed(final int chunks)
    {
        if (!fed)
        {
            throw new IllegalStateException("only a writer started fed is fed chunks");
        }
        if (chunks < available || chunks > chunkCount)
        {
            throw new IllegalArgumentException("chunks available must grow within [" + available + ", " +
                chunkCount + "]: " + chunks);
        }
        available = chunks;
    }

    /** Leading chunks whole in this rank's memory. */
    @Override
    public int chunksReady()
    {
        return writer ? available : done;
    }

    @Override
    public int chunkCount()
    {
        return chunkCount;
    }

    /**
     * Moves what can move without waiting.
     *
     * @return chunks moved, 0 when waiting on a peer
     * @throws RingAbortedException when a rank of the node aborted the fan-out
     */
    @Override
    public int progress()
    {
        final int moved = writer ? write() : read();
        if (moved == 0 && !isDone())
        {
            failIfAborted();
        }
        return moved;
    }

    private int write()
    {
        int moved = 0;
        while (done < available)
        {
            final long sequence = base + done;
            if (sequence - knownMinHead >= slotCount)
            {
                knownMinHead = minReaderHead(position);
                if (sequence - knownMinHead >= slotCount)
                {
                    break;
                }
            }
            final int length = lengthOf(done);
            shm.putBytes(FanoutLayout.slotOffset(participants, sequence, slotCount, slotBytes), memory,
                offsetOf(done), length);
            // Ordered: the slot's bytes are visible before readers can see the chunk posted.
            shm.putLongOrdered(TAIL_OFFSET, sequence + 1);
            done++;
            moved++;
        }
        if (done == chunkCount && moved > 0)
        {
            // The writer "consumes" its own chunks, so the next call's writer, whoever it is, does not
            // wait for this rank.
            shm.putLongOrdered(headOffset, base + chunkCount);
        }
        return moved;
    }

    /** The lowest head of the node's readers, leaving out {@code excluded} and this rank; sets {@link #slowestReader}. */
    private long minReaderHead(final int excluded)
    {
        long min = Long.MAX_VALUE;
        for (int p = 0; p < participants; p++)
        {
            if (p != position && p != excluded)
            {
                final long head = shm.getLongVolatile(FanoutLayout.headOffset(p));
                if (head < min)
                {
                    min = head;
                    slowestReader = p;
                }
            }
        }
        return min;
    }

    private int read()
    {
        int moved = 0;
        while (done < chunkCount)
        {
            final long sequence = base + done;
            if (sequence >= knownTail)
            {
                knownTail = shm.getLongVolatile(TAIL_OFFSET);
                if (sequence >= knownTail)
                {
                    break;
                }
            }
            memory.putBytes(offsetOf(done), shm, FanoutLayout.slotOffset(participants, sequence, slotCount, slotBytes),
                lengthOf(done));
            // Ordered: our reads of the slot happen before the writer may see it free and reuse it.
            shm.putLongOrdered(headOffset, sequence + 1);
            done++;
            moved++;
        }
        return moved;
    }

    private int offsetOf(final int chunk)
    {
        return (int)Chunks.offset(chunk, chunkBytes);
    }

    private int lengthOf(final int chunk)
    {
        return Chunks.length(chunk, chunkBytes, totalBytes);
    }

    /** True once this rank's part of the call is complete. A call of 0 bytes is done at once. */
    @Override
    public boolean isDone()
    {
        return done == chunkCount;
    }

    /** Marks the fan-out failed by this rank, so the others fail fast instead of timing out. */
    @Override
    public void abort()
    {
        aborted = true;
        AbortWord.set(shm, ABORT_OFFSET, position);
    }

    /** The node rank whose failure aborted the fan-out, or {@link RingLink#NOT_ABORTED}. */
    public int abortOrigin()
    {
        return AbortWord.origin(shm, ABORT_OFFSET);
    }

    private void failIfAborted()
    {
        final int origin = abortOrigin();
        if (origin != RingLink.NOT_ABORTED)
        {
            aborted = true;
            throw new RingAbortedException("node rank " + origin + " aborted the node's fan-out", origin);
        }
    }

    /** What this rank waits for, for a timeout message. */
    @Override
    public String describeWait()
    {
        if (writer)
        {
            if (done < available)
            {
                return "node rank " + slowestReader + " to free a fan-out slot (it has consumed " +
                    (knownMinHead - base) + " of " + chunkCount + " chunks, this writer posted " + done + ")";
            }
            return "chunk " + done + " of " + chunkCount + " to arrive for the node's fan-out";
        }
        final String waiting = "chunk " + done + " of " + chunkCount + " from node rank " + writerPosition + " (fan-out writer)";
        // The writer may itself be held back by another reader that never freed a slot: name that one,
        // it is the rank to look at.
        final long tail = shm.getLongVolatile(TAIL_OFFSET);
        final long slowest = minReaderHead(writerPosition);
        if (slowest != Long.MAX_VALUE && tail - slowest >= slotCount)
        {
            return waiting + ", which waits for node rank " + slowestReader + " to free a fan-out slot (it has consumed " +
                Math.max(0, slowest - base) + " of " + chunkCount + " chunks)";
        }
        return waiting;
    }

    /** The segment's path, to hand to the other ranks of the node. */
    public Path path()
    {
        return segment.path();
    }

    /** Removes the segment's name once every rank has mapped it. */
    public void unlink() throws IOException
    {
        segment.unlink();
    }

    /** Largest chunk a slot holds. */
    public int maxChunkBytes()
    {
        return slotBytes;
    }

    /** Node ranks served. */
    public int participants()
    {
        return participants;
    }

    /** Unmaps the segment (and removes its name if this rank created it and it is still there). */
    @Override
    public void close() throws IOException
    {
        segment.close();
    }

    @Override
    public String toString()
    {
        return "ShmFanout{node rank " + position + " of " + participants + ", " + slotCount + " x " + slotBytes +
            " B, " + segment + '}';
    }
}
