package org.hbcast.transport.cuda;

import org.hbcast.engine.RingPipeline;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;

/**
 * One rank's part of a GPU group call as one {@link Stage}: up to three parts, each fed by what is
 * whole in this rank's buffer. A member whose copier is another rank only waits ({@link CopierWait});
 * a group leader runs the chain between GPUs ({@link RingPipeline} peer to peer, or {@link HostHop}
 * through the host: fed by its wait in the first GPU, receiving elsewhere); the copier copies into its group ({@link CopierFanout}), fed by the first
 * rank's data or the leader's ring.
 *
 * <pre>
 * first rank's GPU:  first --copies--> members (incl. its leader) ; leader --ring--> next GPU's leader
 * other GPUs:        leader (copier) <--ring-- ; leader --copies--> members ; leader --ring--> next
 * </pre>
 */
final class GroupCall implements Stage {
    private CopierWait wait;
    private Stage ring;
    private boolean ringFed;
    private CopierFanout fanout;
    private boolean first;
    private boolean fed;
    private int fedChunks;
    private int chunkCount;

    /** Sets the parts of the next call; null for a part this rank does not play. */
    void start(
            final boolean first,
            final boolean fed,
            final long bytes,
            final int chunkBytes,
            final CopierWait wait,
            final Stage ring,
            final boolean ringFed,
            final CopierFanout fanout) {
        this.first = first;
        this.fed = fed;
        this.fedChunks = 0;
        this.chunkCount = Chunks.count(bytes, chunkBytes);
        this.wait = wait;
        this.ring = ring;
        this.ringFed = ringFed;
        this.fanout = fanout;
    }

    /** Leading chunks whole in this rank's buffer. */
    private int ready() {
        if (first) {
            return fed ? fedChunks : chunkCount;
        }
        return wait != null ? wait.chunksReady() : ring.chunksReady();
    }

    @Override
    public int progress() {
        int work = 0;
        if (wait != null) {
            work += wait.progress();
        }
        if (ring != null) {
            if (ringFed) {
                ring.feed(ready());
            }
            work += ring.progress();
        }
        if (fanout != null) {
            fanout.feed(ready());
            work += fanout.progress();
        }
        return work;
    }

    @Override
    public boolean isDone() {
        return (wait == null || wait.isDone())
                && (ring == null || ring.isDone())
                && (fanout == null || fanout.isDone());
    }

    @Override
    public int chunkCount() {
        return chunkCount;
    }

    @Override
    public int chunksReady() {
        return ready();
    }

    @Override
    public void feed(final int chunks) {
        if (!first || !fed) {
            throw new IllegalStateException("only a call's first rank started fed is fed chunks");
        }
        fedChunks = Chunks.fed(fedChunks, chunks, chunkCount);
    }

    @Override
    public String describeWait() {
        final StringBuilder text = new StringBuilder();
        if (wait != null && !wait.isDone()) {
            text.append(wait.describeWait()).append("; ");
        }
        if (ring != null && !ring.isDone()) {
            text.append("GPU ring: ").append(ring.describeWait()).append("; ");
        }
        if (fanout != null && !fanout.isDone()) {
            text.append(fanout.describeWait());
        }
        return text.length() == 0 ? "nothing (done)" : text.toString();
    }

    @Override
    public void abort() {
        if (wait != null) {
            wait.abort();
        }
        if (ring != null) {
            ring.abort();
        }
        if (fanout != null) {
            fanout.abort();
        }
    }
}
