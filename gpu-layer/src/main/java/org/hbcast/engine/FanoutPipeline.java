package org.hbcast.engine;

import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;

/**
 * One rank's part of a broadcast through the node's fan-out, as a {@link Stage}: per call one writer
 * copies each chunk into a slot once, and every other rank copies it out on its own, the writer held
 * back only by the slowest reader. Against the ring it halves the bytes copied per chunk ({@code n}
 * copies instead of {@code 2(n - 1)}) and lets the readers copy in parallel.
 *
 * <p>{@link #startWriter}, {@link #startFedWriter} (a leader whose chunks arrive from the tree and are
 * released by {@link #feed}) or {@link #startReader}, then {@link #progress()} until
 * {@link #isDone()}. Every rank of the node takes part in every call, in the same order, since
 * sequences run on over the life of the link. Knows nothing of the memory it moves (see
 * {@link FanoutLink}); allocation-free per call.
 *
 * @param <M> the kind of memory the link copies between
 */
public final class FanoutPipeline<M> implements Stage {
    private final FanoutLink<M> link;
    private final int position;
    private final int participants;
    private final int slotCount;

    private long base;
    private boolean writer;
    private boolean fed;
    private int writerPosition;
    private M memory;
    private long totalBytes;
    private int chunkBytes;
    private int chunkCount;
    private int available;
    private int done;
    private long knownTail;
    private long knownMinHead;
    private int slowestReader;
    private boolean aborted;

    public FanoutPipeline(FanoutLink<M> link) {
        this.link = link;
        this.position = link.position();
        this.participants = link.participants();
        this.slotCount = link.slotCount();
    }

    /** Starts a call in which this rank holds all {@code totalBytes} of {@code memory} and writes them. */
    public void startWriter(M memory, long totalBytes, int chunkBytes) {
        start(true, position, memory, totalBytes, chunkBytes);
        fed = false;
        available = chunkCount;
    }

    /** Starts a call in which this rank writes chunks as {@link #feed} releases them. */
    public void startFedWriter(M memory, long totalBytes, int chunkBytes) {
        start(true, position, memory, totalBytes, chunkBytes);
        fed = true;
        available = 0;
    }

    /** Starts a call in which node rank {@code writerPosition} writes and this rank reads into memory. */
    public void startReader(int writerPosition, M memory, long totalBytes, int chunkBytes) {
        if (writerPosition < 0 || writerPosition >= participants) {
            throw new IllegalArgumentException(
                    "writer node rank " + writerPosition + " outside [0, " + participants + ")");
        }
        if (writerPosition == position) {
            throw new IllegalArgumentException("node rank " + position + " cannot read its own writes");
        }
        start(false, writerPosition, memory, totalBytes, chunkBytes);
        fed = false;
    }

    private void start(boolean writer, int writerPosition, M memory, long totalBytes, int chunkBytes) {
        if (aborted) {
            throw new IllegalStateException("fan-out aborted earlier; it cannot be reused");
        }
        if (!isDone()) {
            throw new IllegalStateException("previous broadcast has not finished: " + describeWait());
        }
        if (chunkBytes > link.maxChunkBytes()) {
            throw new IllegalArgumentException(
                    "chunks of " + chunkBytes + " bytes do not fit the fan-out's slots of " + link.maxChunkBytes());
        }
        int chunks = Chunks.count(totalBytes, chunkBytes);
        if (chunks > 0 && memory == null) {
            throw new IllegalArgumentException("memory is required to move " + totalBytes + " bytes");
        }
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
    public void feed(int chunks) {
        if (!fed) {
            throw new IllegalStateException("only a writer started fed is fed chunks");
        }
        available = Chunks.fed(available, chunks, chunkCount);
    }

    /** Leading chunks whole in this rank's memory. */
    @Override
    public int chunksReady() {
        return writer ? available : done;
    }

    @Override
    public int chunkCount() {
        return chunkCount;
    }

    /**
     * Moves what can move without waiting.
     *
     * @return chunks moved, 0 when waiting on a peer
     * @throws RingAbortedException when a rank of the node aborted the fan-out
     */
    @Override
    public int progress() {
        int moved = link.poll() + (writer ? write() : read());
        if (moved == 0 && !isDone()) {
            failIfAborted();
        }
        return moved;
    }

    private int write() {
        int moved = 0;
        while (done < available) {
            long sequence = base + done;
            if (sequence - knownMinHead >= slotCount) {
                knownMinHead = minReaderHead(position);
                if (sequence - knownMinHead >= slotCount) {
                    break;
                }
            }
            link.post(sequence, memory, Chunks.offset(done, chunkBytes), Chunks.length(done, chunkBytes, totalBytes));
            done++;
            moved++;
        }
        if (done == chunkCount && moved > 0) {
            // The writer "consumes" its own chunks, so the next call's writer, whoever it is, does not
            // wait for this rank.
            link.consumeTo(base + chunkCount);
        }
        return moved;
    }

    /** The lowest head of the node's readers, leaving out {@code excluded} and this rank; sets {@link #slowestReader}. */
    private long minReaderHead(int excluded) {
        long min = Long.MAX_VALUE;
        for (int p = 0; p < participants; p++) {
            if (p != position && p != excluded) {
                long head = link.consumed(p);
                if (head < min) {
                    min = head;
                    slowestReader = p;
                }
            }
        }
        return min;
    }

    private int read() {
        int moved = 0;
        while (done < chunkCount) {
            long sequence = base + done;
            if (sequence >= knownTail) {
                knownTail = link.posted();
                if (sequence >= knownTail) {
                    break;
                }
            }
            link.take(sequence, memory, Chunks.offset(done, chunkBytes), Chunks.length(done, chunkBytes, totalBytes));
            done++;
            moved++;
        }
        return moved;
    }

    /** True once this rank's part of the call is complete. A call of 0 bytes is done at once. */
    @Override
    public boolean isDone() {
        return done == chunkCount && link.isSettled();
    }

    /** Marks the fan-out failed by this rank, so the others fail fast instead of timing out. */
    @Override
    public void abort() {
        aborted = true;
        link.abort(position);
    }

    private void failIfAborted() {
        int origin = link.abortOrigin();
        if (origin != RingLink.NOT_ABORTED) {
            aborted = true;
            throw new RingAbortedException("node rank " + origin + " aborted the node's fan-out", origin);
        }
    }

    /** What this rank waits for, for a timeout message. */
    @Override
    public String describeWait() {
        if (writer) {
            if (done < available) {
                return "node rank " + slowestReader + " to free a fan-out slot (it has consumed "
                        + (knownMinHead - base) + " of " + chunkCount + " chunks, this writer posted " + done + ")";
            }
            return "chunk " + done + " of " + chunkCount + " to arrive for the node's fan-out";
        }
        String waiting =
                "chunk " + done + " of " + chunkCount + " from node rank " + writerPosition + " (fan-out writer)";
        // The writer may itself be held back by another reader that never freed a slot: name that one,
        // it is the rank to look at.
        long tail = link.posted();
        long slowest = minReaderHead(writerPosition);
        if (slowest != Long.MAX_VALUE && tail - slowest >= slotCount) {
            return waiting + ", which waits for node rank " + slowestReader
                    + " to free a fan-out slot (it has consumed " + Math.max(0, slowest - base) + " of " + chunkCount
                    + " chunks)";
        }
        return waiting;
    }

    @Override
    public String toString() {
        return "fan-out of node rank " + position + (writer ? " (writer)" : " (reader)");
    }
}
