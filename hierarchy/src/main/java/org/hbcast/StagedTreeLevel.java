package org.hbcast;

import mpi.MPIException;
import org.hbcast.gpu.cuda.StagingCopies;
import org.hbcast.mpi.KnomialBroadcast;

/**
 * The level between nodes for device memory: the k-nomial tree moves pinned host copies, and the
 * staging copies take each segment from the device before the tree sends it (on the root) or to the
 * device once the tree has received it (elsewhere). Only segments that are on the device count as
 * ready for the node's ring.
 */
final class StagedTreeLevel implements InterNodeLevel {
    private final KnomialBroadcast tree;
    private final StagingCopies staging;
    private boolean sending;

    StagedTreeLevel(KnomialBroadcast tree, StagingCopies staging) {
        this.tree = tree;
        this.staging = staging;
    }

    /** Call after starting the tree and the staging copies: {@code sending} on the root. */
    void begin(boolean sending) {
        this.sending = sending;
        if (sending) {
            tree.markRootReady(0);
        }
    }

    @Override
    public int progress() throws MPIException {
        int work = tree.progress();
        work += staging.issue(sending ? staging.segmentCount() : tree.segmentsReady());
        int copied = staging.poll();
        if (copied > 0 && sending) {
            tree.markRootReady(staging.segmentsDone());
        }
        return work + copied;
    }

    @Override
    public boolean isDone() {
        return tree.isDone() && staging.isDone();
    }

    @Override
    public int segmentsReady() {
        return staging.segmentsDone();
    }

    @Override
    public String describeWait() {
        return !tree.isDone() ? tree.pending() : "staging copies between the GPU and host memory";
    }

    @Override
    public void abort() {
        tree.cancel();
        staging.drain();
    }
}
