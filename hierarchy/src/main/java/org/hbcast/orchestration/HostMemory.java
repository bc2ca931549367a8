package org.hbcast.orchestration;

import java.nio.Buffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.call.HostCopy;
import org.hbcast.engine.FanoutPipeline;
import org.hbcast.engine.RingPipeline;
import org.hbcast.plan.Plan;
import org.hbcast.stage.Stage;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmRingLinks;

/**
 * Direct host memory as {@link PlanDriver} moves it: the leaders' tree sends it as it is, and the
 * node moves it over the shared-memory ring or fan-out, whichever the plan names.
 */
final class HostMemory implements CallMemory {
    /** The node's ring links, and the engine's pipeline over them (null where no host plan uses them). */
    private final ShmRingLinks ring;

    private final RingPipeline<MutableDirectBuffer> ringPipeline;
    /** The engine's fan-out over the node's segment (null where no host plan uses it). */
    private final FanoutPipeline<MutableDirectBuffer> fanout;

    private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
    private Buffer data;
    private int entryBytes;

    HostMemory(ShmRingLinks ring, ShmFanout fanout) {
        this.ring = ring;
        this.ringPipeline = ring == null ? null : ring.newPipeline();
        this.fanout = fanout == null ? null : fanout.pipeline();
    }

    /** This memory for a call on {@code data}, elements of {@code entryBytes}. */
    HostMemory bind(Buffer data, int entryBytes) {
        this.data = data;
        this.entryBytes = entryBytes;
        return this;
    }

    @Override
    public int begin(Plan plan) {
        return plan.chunkBytes();
    }

    @Override
    public Stage startStaging(boolean toHost, long bytes, int chunkBytes) {
        return null;
    }

    @Override
    public Buffer treeData() {
        return data;
    }

    @Override
    public int treeEntryBytes() {
        return entryBytes;
    }

    @Override
    public Stage startNode(Plan plan, long bytes, int chunkBytes, int first, boolean leader, boolean fed) {
        view.wrap(HostCopy.address(data), (int) bytes);
        if (plan.usesFanout()) {
            if (!leader) {
                fanout.startReader(first, view, bytes, chunkBytes);
            } else if (fed) {
                fanout.startFedWriter(view, bytes, chunkBytes);
            } else {
                fanout.startWriter(view, bytes, chunkBytes);
            }
            return fanout;
        }
        return fed
                ? ringPipeline.resetFed(view, bytes, chunkBytes)
                : ringPipeline.reset(ring.role(first), view, bytes, chunkBytes);
    }

    @Override
    public void refuseNode(long bytes) {
        // The ring and fan-out have no per-call exchange to join: the failed call stops the instance,
        // which tells every peer (InstanceStop).
    }

    @Override
    public void end() {
        data = null;
    }
}
