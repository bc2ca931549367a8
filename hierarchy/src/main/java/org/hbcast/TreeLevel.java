package org.hbcast;

import mpi.MPIException;
import org.hbcast.mpi.KnomialBroadcast;

/** The level between nodes for host memory: the k-nomial tree alone moves the leaders' buffers. */
final class TreeLevel implements InterNodeLevel {
    private final KnomialBroadcast tree;

    TreeLevel(KnomialBroadcast tree) {
        this.tree = tree;
    }

    @Override
    public int progress() throws MPIException {
        return tree.progress();
    }

    @Override
    public boolean isDone() {
        return tree.isDone();
    }

    @Override
    public int segmentsReady() {
        return tree.segmentsReady();
    }

    @Override
    public String describeWait() {
        return tree.pending();
    }

    @Override
    public void abort() {
        tree.cancel();
    }
}
