package org.hbcast.transport.cuda;

import org.hbcast.engine.RingAbortedException;
import org.hbcast.engine.RingException;
import org.hbcast.engine.RingLink;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;
import org.hbcast.transport.shm.ShmInbox;

/**
 * A GPU group member's part of a call whose copier is another rank of its group: it issues no copy,
 * it watches its control block's TAIL (the copier publishes a chunk only once the chunk's copy into
 * this rank's buffer has completed) and hands each chunk's credit straight back.
 */
final class CopierWait implements Stage {
    private final ShmInbox inbox;
    private int copier;
    private long totalBytes;
    private int chunkBytes;
    private int chunkCount;
    private int received;

    CopierWait(final ShmInbox inbox) {
        this.inbox = inbox;
    }

    /** Starts a call of {@code totalBytes} in chunks of {@code chunkBytes} copied by node rank {@code copier}. */
    void start(final int copier, final long totalBytes, final int chunkBytes) {
        this.copier = copier;
        this.totalBytes = totalBytes;
        this.chunkBytes = chunkBytes;
        this.chunkCount = Chunks.count(totalBytes, chunkBytes);
        this.received = 0;
    }

    @Override
    public int progress() {
        int work = 0;
        while (received < chunkCount && inbox.hasChunk()) {
            final int length = inbox.chunkLength();
            final int expected = Chunks.length(received, chunkBytes, totalBytes);
            if (length != expected) {
                throw new RingException("node rank " + inbox.localRank() + " expected chunk " + received + " of "
                        + expected + " bytes from its GPU's copier, node rank " + copier + ", which posted " + length);
            }
            inbox.release();
            received++;
            work++;
        }
        if (work == 0 && received < chunkCount) {
            final int origin = inbox.abortOrigin();
            if (origin != RingLink.NOT_ABORTED) {
                throw new RingAbortedException(
                        "GPU group copy aborted by node rank " + origin + "; node rank " + inbox.localRank()
                                + " was waiting for " + describeWait(),
                        origin);
            }
        }
        return work;
    }

    @Override
    public boolean isDone() {
        return received == chunkCount;
    }

    @Override
    public int chunkCount() {
        return chunkCount;
    }

    @Override
    public int chunksReady() {
        return received;
    }

    @Override
    public void feed(final int chunks) {
        throw new IllegalStateException("a GPU group member is not fed; its copier writes its buffer");
    }

    @Override
    public String describeWait() {
        return "chunk " + received + " of " + chunkCount + " from its GPU's copier, node rank " + copier;
    }

    @Override
    public void abort() {
        inbox.abort(inbox.localRank());
    }
}
