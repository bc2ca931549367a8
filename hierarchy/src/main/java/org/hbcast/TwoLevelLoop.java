package org.hbcast;

import mpi.MPIException;
import org.hbcast.gpu.IntraNodeBroadcast;

/**
 * The one progress loop of a two-level broadcast (host or device memory alike): advances the level
 * between nodes and the level inside the node in turn until both are done, feeding the node what the
 * tree has made ready, and backs off while neither moves. Nothing waits forever: after the timeout
 * with no progress it aborts both levels and reports what this rank was waiting for. Allocation-free.
 */
final class TwoLevelLoop {
    private final ProgressWait wait;
    private boolean stalledInNode;

    TwoLevelLoop(long timeoutNs) {
        this.wait = ProgressWait.backingOff(timeoutNs);
    }

    /**
     * Runs one call to the end.
     *
     * @param between the level between nodes, or null where this rank takes no part in it
     * @param inside the level inside the node, or null on a node of one rank
     * @param fed true when {@code inside} may pass on only what {@code between} has made ready
     *        (then {@code between} is not null)
     * @return null once both levels are done; on a timeout, both aborted, what this rank waited for
     *         (see {@link #stalledInNode()} for which level it was)
     * @throws MPIException from the levels, after aborting both
     */
    String run(InterNodeLevel between, IntraNodeBroadcast inside, boolean fed) throws MPIException {
        wait.reset();
        try {
            while (true) {
                int work = 0;
                boolean done = true;
                if (between != null) {
                    work += between.progress();
                    done = between.isDone();
                }
                if (inside != null) {
                    if (fed) {
                        inside.markAvailable(between.segmentsReady());
                    }
                    work += inside.progress();
                    done &= inside.isDone();
                }
                if (done) {
                    return null;
                }
                if (wait.timedOut(work)) {
                    stalledInNode = between == null || between.isDone();
                    String what = stalledInNode ? inside.describeWait() : between.describeWait();
                    abort(between, inside);
                    return what;
                }
            }
        } catch (MPIException | RuntimeException e) {
            abort(between, inside);
            throw e;
        }
    }

    /** After a timed-out {@link #run}: true when the level inside the node was the one waiting. */
    boolean stalledInNode() {
        return stalledInNode;
    }

    private static void abort(InterNodeLevel between, IntraNodeBroadcast inside) {
        if (inside != null) {
            inside.abort();
        }
        if (between != null) {
            between.abort();
        }
    }
}
