package org.hbcast;

import mpi.MPIException;

/**
 * The level between nodes of one broadcast call, as {@link TwoLevelLoop} drives it: the tree among
 * node leaders, with or without staging copies between device and host memory. The level inside the
 * node (an {@link org.hbcast.gpu.IntraNodeBroadcast}) passes on what this one has made ready.
 */
interface InterNodeLevel {
    /** Moves what can move without waiting; returns units of work done, 0 when waiting on a peer. */
    int progress() throws MPIException;

    /** True once this rank's part of the current call is complete. */
    boolean isDone();

    /** Leading segments that are whole in this rank's buffer, ready for the node below. */
    int segmentsReady();

    /** What this rank waits for, for a timeout message. */
    String describeWait();

    /** Gives up the current call: cancels what is in flight. */
    void abort();
}
