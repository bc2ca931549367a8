package org.hbcast.transport.cuda;

import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.RingAbortedException;
import org.hbcast.engine.RingLink;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;

/**
 * A GPU group copier's part of a call: every chunk that is whole in its buffer is copied, by this
 * rank's stream, straight into each other member's buffer (mapped once, {@link CudaIpcSender#bindMapped}),
 * and published to that member's control block once its copy's event has completed. The members issue
 * no copy at all; they only watch their counters ({@link CopierWait}). Always fed: the call's first
 * rank feeds every chunk at once, a group leader what the GPU ring has delivered.
 *
 * <p>Allocation-free per call and per chunk.
 */
final class CopierFanout implements Stage {
    private final int localRank;
    private final CudaIpcSender[] senders;
    private final int[] sent;
    private int targets;
    private DeviceBuffer memory;
    private long totalBytes;
    private int chunkBytes;
    private int chunkCount;
    private int available;

    CopierFanout(final int localRank, final int maxTargets) {
        this.localRank = localRank;
        this.senders = new CudaIpcSender[maxTargets];
        this.sent = new int[maxTargets];
    }

    /** Clears the targets of the next call. */
    void clear() {
        targets = 0;
    }

    /** Adds a member whose link is bound to its mapped buffer for the next call. */
    void add(final CudaIpcSender sender) {
        senders[targets] = sender;
        sent[targets] = 0;
        targets++;
    }

    /** Starts the call: chunks of {@code memory} become sendable as {@link #feed} says. */
    void start(final DeviceBuffer memory, final long totalBytes, final int chunkBytes) {
        this.memory = memory;
        this.totalBytes = totalBytes;
        this.chunkBytes = chunkBytes;
        this.chunkCount = Chunks.count(totalBytes, chunkBytes);
        this.available = 0;
    }

    @Override
    public int progress() {
        int work = 0;
        for (int t = 0; t < targets; t++) {
            final CudaIpcSender sender = senders[t];
            work += sender.poll();
            while (sent[t] < available
                    && sender.trySend(
                            memory,
                            Chunks.offset(sent[t], chunkBytes),
                            Chunks.length(sent[t], chunkBytes, totalBytes))) {
                sent[t]++;
                work++;
            }
        }
        if (work == 0 && !isDone()) {
            failIfAborted();
        }
        return work;
    }

    private void failIfAborted() {
        for (int t = 0; t < targets; t++) {
            final int origin = senders[t].abortOrigin();
            if (origin != RingLink.NOT_ABORTED) {
                abort();
                throw new RingAbortedException(
                        "GPU group copy aborted by node rank " + origin + "; node rank " + localRank
                                + " was copying for node rank " + senders[t].peerRank(),
                        origin);
            }
        }
    }

    @Override
    public boolean isDone() {
        for (int t = 0; t < targets; t++) {
            if (sent[t] < chunkCount || !senders[t].isSettled()) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int chunkCount() {
        return chunkCount;
    }

    @Override
    public int chunksReady() {
        return available;
    }

    @Override
    public void feed(final int chunks) {
        available = Chunks.fed(available, chunks, chunkCount);
    }

    @Override
    public String describeWait() {
        final StringBuilder wait = new StringBuilder("copier node rank " + localRank + ":");
        for (int t = 0; t < targets; t++) {
            wait.append(" node rank ")
                    .append(senders[t].peerRank())
                    .append(" sent ")
                    .append(sent[t])
                    .append('/')
                    .append(chunkCount)
                    .append(" (")
                    .append(senders[t])
                    .append(')');
        }
        return wait.append(", available ").append(available).toString();
    }

    @Override
    public void abort() {
        for (int t = 0; t < targets; t++) {
            senders[t].abort(localRank);
        }
    }
}
