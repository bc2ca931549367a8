package org.hbcast.engine;

import java.util.Objects;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;

/**
 * One rank's part of a pipelined broadcast along the node's chain, as a non-blocking state machine.
 *
 * <p>The message is cut into chunks of {@code chunkBytes} (the last one shorter). The first rank
 * sends each chunk as soon as it is available; a middle rank forwards each chunk as soon as it has
 * it, straight out of its inbox slot when the right neighbour has room (cut-through), otherwise from
 * its own buffer later so that the left neighbour's slot is not held up; the last rank only receives.
 *
 * <p>The engine does not know what kind of memory it moves: it hands {@code M} values and offsets to
 * the links. One object serves every broadcast of a ring: {@link #reset} it per call, then call
 * {@link #progress()} until {@link #isDone()}, as a {@link Stage} of the call's one loop. Neither
 * allocates. A node leader's ring is started fed ({@link #resetFed}): the loop passes on what the
 * tree has delivered with {@link #feed(int)}.
 *
 * <p>Not thread-safe: one call at a time, driven by one thread.
 *
 * @param <M> the kind of memory (host buffer, device pointer) the links copy between
 */
public final class RingPipeline<M> implements Stage {
    private final ChunkSender<M> sender;
    private final ChunkReceiver<M> receiver;
    private final int localRank;
    private final int maxChunkBytes;

    private RingRole role = RingRole.ALONE;
    private M memory;
    private long totalBytes;
    private int chunkBytes;
    private int chunkCount;
    private boolean fed;
    private int available;
    private int sent;
    private int received;

    /**
     * A pipeline over the links of one ring member.
     *
     * @param sender   the link to the right neighbour, or null in a ring of one
     * @param receiver the link from the left neighbour, or null in a ring of one
     */
    public RingPipeline(final ChunkSender<M> sender, final ChunkReceiver<M> receiver) {
        if ((sender == null) != (receiver == null)) {
            throw new IllegalArgumentException("a ring member has both links or, alone, neither");
        }
        this.sender = sender;
        this.receiver = receiver;
        if (sender == null) {
            localRank = 0;
            maxChunkBytes = Integer.MAX_VALUE;
        } else {
            if (sender.localRank() != receiver.localRank()) {
                throw new IllegalArgumentException("links belong to different ranks: sender " + sender.localRank()
                        + ", receiver " + receiver.localRank());
            }
            if (sender.peerRank() < 0 || receiver.peerRank() < 0) {
                // Every failure message names the neighbours: a link that does not know its peer would say "-1".
                throw new IllegalArgumentException("node rank " + sender.localRank()
                        + "'s links do not name their neighbours: right " + sender.peerRank() + ", left "
                        + receiver.peerRank() + " (connect both before the pipeline)");
            }
            localRank = sender.localRank();
            maxChunkBytes = Math.min(sender.maxChunkBytes(), receiver.maxChunkBytes());
        }
    }

    /** A pipeline for a ring of one rank, which only ever plays {@link RingRole#ALONE}. */
    public static <M> RingPipeline<M> alone() {
        return new RingPipeline<>(null, null);
    }

    /**
     * Prepares the next broadcast. A {@link RingRole#FIRST} rank starts with every chunk available
     * (it is the root); use {@link #resetFed} for a first rank whose data is still arriving.
     *
     * @param role       this rank's role in this broadcast ({@link RingRole#of})
     * @param memory     this rank's buffer: read by the first rank, written by the others
     * @param totalBytes bytes to broadcast, from offset 0 of {@code memory}; 0 is a no-op
     * @param chunkBytes bytes per chunk, 1 to {@link #maxChunkBytes()}
     * @return this
     * @throws RingAbortedException if the ring was aborted by an earlier failure
     */
    public RingPipeline<M> reset(final RingRole role, final M memory, final long totalBytes, final int chunkBytes) {
        Objects.requireNonNull(role, "role");
        start(role, memory, totalBytes, chunkBytes);
        fed = false;
        available = role == RingRole.FIRST ? chunkCount : 0;
        return this;
    }

    /**
     * Prepares a broadcast in which this rank is first but receives the data from elsewhere (the
     * inter-node tree): no chunk is available until {@link #feed} says so.
     */
    public RingPipeline<M> resetFed(final M memory, final long totalBytes, final int chunkBytes) {
        start(RingRole.FIRST, memory, totalBytes, chunkBytes);
        fed = true;
        available = 0;
        return this;
    }

    private void start(final RingRole role, final M memory, final long totalBytes, final int chunkBytes) {
        if (!isDone()) {
            throw new IllegalStateException("previous broadcast has not finished: " + describeWait());
        }
        if (chunkBytes > maxChunkBytes) {
            throw new IllegalArgumentException(
                    "chunks of " + chunkBytes + " bytes do not fit the ring's slots of " + maxChunkBytes);
        }
        if (role != RingRole.ALONE && sender == null) {
            throw new IllegalArgumentException("a ring of one rank can only be ALONE, not " + role);
        }
        final int chunks = Chunks.count(totalBytes, chunkBytes);
        if (chunks > 0 && role != RingRole.ALONE && memory == null) {
            throw new IllegalArgumentException("memory is required to move " + totalBytes + " bytes");
        }
        if (role != RingRole.ALONE) {
            failIfAborted();
        }
        this.role = role;
        this.memory = memory;
        this.totalBytes = totalBytes;
        this.chunkBytes = chunkBytes;
        this.chunkCount = role == RingRole.ALONE ? 0 : chunks;
        this.sent = 0;
        this.received = 0;
    }

    /** Declares chunks {@code [0, chunks)} present in this fed first rank's buffer, so they may be sent. */
    @Override
    public void feed(final int chunks) {
        if (!fed) {
            throw new IllegalStateException("only a FIRST rank started fed is fed chunks; this rank is " + role);
        }
        available = Chunks.fed(available, chunks, chunkCount);
    }

    /** Leading chunks whole in this rank's buffer. */
    @Override
    public int chunksReady() {
        return role == RingRole.FIRST ? available : received;
    }

    /**
     * Moves whatever can move now without waiting. Returns the number of chunk copies done, 0 when
     * nothing could move.
     *
     * @throws RingAbortedException if nothing can move because a neighbour's abort reached this rank
     * @throws RingException        if the left neighbour posted a chunk of an unexpected length
     */
    @Override
    public int progress() {
        int work;
        switch (role) {
            case FIRST:
                work = sender.poll() + sendAvailable();
                break;
            case MIDDLE:
                work = sender.poll() + receiver.poll() + forward();
                break;
            case LAST:
                work = receiver.poll() + receiveAll();
                break;
            default:
                return 0;
        }
        if (work == 0 && !isDone()) {
            failIfAborted();
        }
        return work;
    }

    private int sendAvailable() {
        final int limit = available;
        int work = 0;
        while (sent < limit && sender.trySend(memory, offsetOf(sent), lengthOf(sent))) {
            sent++;
            work++;
        }
        return work;
    }

    private int forward() {
        int work = 0;
        boolean moved;
        do {
            moved = false;
            // Chunks that arrived while the right neighbour had no room go out of our own buffer, in order.
            while (sent < received && sender.trySend(memory, offsetOf(sent), lengthOf(sent))) {
                sent++;
                work++;
                moved = true;
            }
            if (received < chunkCount && receiver.hasChunk()) {
                final int length = checkedLength();
                // Cut-through: forwarding first puts the chunk one copy sooner into the right
                // neighbour's hands, which shortens the pipeline's fill by one copy per hop.
                if (sent == received && sender.trySend(receiver.chunkMemory(), receiver.chunkOffset(), length)) {
                    sent++;
                    work++;
                }
                receiver.copyChunk(memory, offsetOf(received), length);
                receiver.release();
                received++;
                work++;
                moved = true;
            }
        } while (moved);
        return work;
    }

    private int receiveAll() {
        int work = 0;
        while (received < chunkCount && receiver.hasChunk()) {
            final int length = checkedLength();
            receiver.copyChunk(memory, offsetOf(received), length);
            receiver.release();
            received++;
            work++;
        }
        return work;
    }

    private int checkedLength() {
        final int expected = lengthOf(received);
        final int posted = receiver.chunkLength();
        if (posted != expected) {
            abortLinks(localRank);
            throw new RingException(
                    "node rank " + receiver.peerRank() + " (left neighbour) posted chunk " + (received + 1)
                            + " of " + chunkCount + " with " + posted + " bytes, node rank " + localRank + " expected "
                            + expected + " (" + totalBytes + " bytes in chunks of " + chunkBytes
                            + "): the ranks disagree on the broadcast size or chunk size");
        }
        return expected;
    }

    private long offsetOf(final int chunk) {
        return Chunks.offset(chunk, chunkBytes);
    }

    private int lengthOf(final int chunk) {
        return Chunks.length(chunk, chunkBytes, totalBytes);
    }

    /** True when this rank's part of the current broadcast is complete (at once for 0 bytes or ALONE). */
    @Override
    public boolean isDone() {
        switch (role) {
            case FIRST:
                return sent == chunkCount && sender.isSettled();
            case MIDDLE:
                return sent == chunkCount && received == chunkCount && sender.isSettled() && receiver.isSettled();
            case LAST:
                return received == chunkCount && receiver.isSettled();
            default:
                return true;
        }
    }

    /**
     * Sets the abort word of both links on behalf of this rank, so both neighbours fail fast (and
     * pass it on). Call when this rank gives up on the broadcast for any reason. The ring stays
     * aborted.
     */
    @Override
    public void abort() {
        abortLinks(localRank);
    }

    private void abortLinks(final int originRank) {
        if (sender != null) {
            sender.abort(originRank);
            receiver.abort(originRank);
        }
    }

    private void failIfAborted() {
        if (sender == null) {
            return;
        }
        failIfAborted(receiver, "left");
        failIfAborted(sender, "right");
    }

    private void failIfAborted(final RingLink link, final String side) {
        final int origin = link.abortOrigin();
        if (origin == RingLink.NOT_ABORTED) {
            return;
        }
        // Pass it on so that the ranks beyond this one fail fast too.
        abortLinks(origin);
        final String culprit = origin == localRank ? "this rank (node rank " + localRank + ")" : "node rank " + origin;
        final String via = origin == link.peerRank() || origin == localRank
                ? ""
                : ", reported by node rank " + link.peerRank() + " (" + side + " neighbour)";
        final String doing = isDone() ? "" : "; node rank " + localRank + " was waiting for " + describeWait();
        throw new RingAbortedException("ring broadcast aborted by " + culprit + via + doing, origin);
    }

    /**
     * What this rank is waiting for, naming chunk and peer, e.g. "chunk 5 of 12 from node rank 2
     * (left neighbour)". Chunks are counted from 1. For error messages: allocates.
     */
    @Override
    public String describeWait() {
        if (isDone()) {
            return "nothing (done)";
        }
        final StringBuilder wait = new StringBuilder();
        switch (role) {
            case FIRST:
                if (sent < available) {
                    appendCredit(wait, "send");
                } else {
                    wait.append("chunk ")
                            .append(sent + 1)
                            .append(" of ")
                            .append(chunkCount)
                            .append(" to arrive from the inter-node level");
                }
                break;
            case MIDDLE:
                if (received < chunkCount) {
                    appendChunk(wait);
                }
                if (sent < received) {
                    appendCredit(wait.append(wait.length() > 0 ? " and for " : ""), "forward");
                }
                break;
            default:
                if (received < chunkCount) {
                    appendChunk(wait);
                }
                break;
        }
        if (wait.length() == 0) {
            wait.append("copies in flight on the links to complete");
        }
        return wait.toString();
    }

    private void appendChunk(final StringBuilder wait) {
        wait.append("chunk ")
                .append(received + 1)
                .append(" of ")
                .append(chunkCount)
                .append(" from node rank ")
                .append(receiver.peerRank())
                .append(" (left neighbour)");
    }

    private void appendCredit(final StringBuilder wait, final String verb) {
        wait.append("slot credit from node rank ")
                .append(sender.peerRank())
                .append(" (right neighbour) to ")
                .append(verb)
                .append(" chunk ")
                .append(sent + 1)
                .append(" of ")
                .append(chunkCount);
    }

    /** This rank's role in the current broadcast. */
    public RingRole role() {
        return role;
    }

    /** Node rank of this ring member. */
    public int localRank() {
        return localRank;
    }

    /** Chunks in the current broadcast. */
    @Override
    public int chunkCount() {
        return chunkCount;
    }

    /** Chunk size of the current broadcast. */
    public int chunkBytes() {
        return chunkBytes;
    }

    /** Bytes in the current broadcast. */
    public long totalBytes() {
        return totalBytes;
    }

    /** Chunks handed to the right neighbour so far in this broadcast. */
    public int chunksSent() {
        return sent;
    }

    /** Chunks taken from the left neighbour so far in this broadcast. */
    public int chunksReceived() {
        return received;
    }

    /** Chunks the first rank may send so far in this broadcast. */
    public int chunksAvailable() {
        return available;
    }

    /** Largest chunk the links carry. */
    public int maxChunkBytes() {
        return maxChunkBytes;
    }

    @Override
    public String toString() {
        return "RingPipeline{rank " + localRank + ", " + role + ", " + totalBytes + " bytes, " + chunkCount
                + " chunks of " + chunkBytes + ", sent " + sent + ", received " + received + '}';
    }
}
