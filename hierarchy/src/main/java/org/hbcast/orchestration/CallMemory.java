package org.hbcast.orchestration;

import java.nio.Buffer;
import org.hbcast.plan.Plan;
import org.hbcast.stage.Stage;

/**
 * The memory one call moves, host or device, as {@link PlanDriver} sees it: the driver starts the
 * same stages for both kinds and asks the memory only what differs between them: the chunk, what
 * the leaders' tree moves and the copies around it, and the node's stage. Made once per instance and
 * bound to each call's buffer, so that a call allocates nothing.
 */
interface CallMemory {
    /** Readies the memory for a call under {@code plan} on the caller's thread; returns the bytes of its chunks. */
    int begin(Plan plan);

    /**
     * Starts the copies between this memory and what the tree moves, where the tree cannot move this
     * memory itself: to the host before the tree at the root ({@code toHost}), back after it elsewhere.
     *
     * @return the copies' stage, or null where the tree moves this memory
     */
    Stage startStaging(boolean toHost, long bytes, int chunkBytes);

    /** What the leaders' tree moves, once {@link #startStaging} has run. */
    Buffer treeData();

    /** Bytes of one element of {@link #treeData()}, for the tree's element-aligned cuts. */
    int treeEntryBytes();

    /**
     * Starts this rank's part of the node's stage (the ring or the fan-out the plan names) from node
     * rank {@code first}.
     *
     * @param leader whether this rank is the node's leader for the call
     * @param fed whether the node's stage takes its chunks from the tree instead of from this memory
     */
    Stage startNode(Plan plan, long bytes, int chunkBytes, int first, boolean leader, boolean fed);

    /** This rank gives up before starting its node stage: its neighbours learn it where they would wait for it. */
    void refuseNode(long bytes);

    /** Lets go of the call's buffer, which the program owns. */
    void end();
}
