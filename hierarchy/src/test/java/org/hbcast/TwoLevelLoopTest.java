package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import mpi.MPIException;
import org.hbcast.gpu.IntraNodeBroadcast;
import org.junit.jupiter.api.Test;

/** The loop's contract with scripted levels: feeding, finishing, timing out on the right level, aborting on errors. */
class TwoLevelLoopTest {
    private static final long TIMEOUT = TimeUnit.MILLISECONDS.toNanos(50);

    /** A tree that receives one segment per round up to {@code segments}, or stops after {@code stallAfter}. */
    private static final class Tree implements InterNodeLevel {
        final int segments;
        final int stallAfter;
        int ready;
        boolean aborted;
        RuntimeException failure;

        Tree(int segments, int stallAfter) {
            this.segments = segments;
            this.stallAfter = stallAfter;
        }

        @Override
        public int progress() throws MPIException {
            if (failure != null) {
                throw failure;
            }
            if (ready < Math.min(segments, stallAfter)) {
                ready++;
                return 1;
            }
            return 0;
        }

        @Override
        public boolean isDone() {
            return ready == segments;
        }

        @Override
        public int segmentsReady() {
            return ready;
        }

        @Override
        public String describeWait() {
            return "tree segment " + ready;
        }

        @Override
        public void abort() {
            aborted = true;
        }
    }

    /** A node transport that passes on one available chunk per round and never runs ahead of what it was given. */
    private static final class Node implements IntraNodeBroadcast {
        final int chunks;
        final boolean fed;
        int available;
        int passed;
        boolean aborted;

        Node(int chunks, boolean fed) {
            this.chunks = chunks;
            this.fed = fed;
        }

        @Override
        public int progress() {
            int limit = fed ? available : chunks;
            if (passed < Math.min(limit, chunks)) {
                passed++;
                return 1;
            }
            return 0;
        }

        @Override
        public boolean isDone() {
            return passed == chunks;
        }

        @Override
        public void markAvailable(int n) {
            assertTrue(n >= available, "available chunks never move backwards");
            available = n;
        }

        @Override
        public void abort() {
            aborted = true;
        }

        @Override
        public String describeWait() {
            return "node chunk " + passed;
        }
    }

    @Test
    void aFedNodePassesOnOnlyWhatTheTreeHasReadyAndBothFinish() throws MPIException {
        Tree tree = new Tree(8, Integer.MAX_VALUE);
        Node node = new Node(8, true);
        assertNull(new TwoLevelLoop(TIMEOUT).run(tree, node, true));
        assertTrue(tree.isDone() && node.isDone());
        assertFalse(tree.aborted || node.aborted);
    }

    @Test
    void eitherLevelAloneRunsToTheEnd() throws MPIException {
        assertNull(new TwoLevelLoop(TIMEOUT).run(new Tree(3, Integer.MAX_VALUE), null, false));
        assertNull(new TwoLevelLoop(TIMEOUT).run(null, new Node(3, false), false));
    }

    @Test
    void aStalledTreeIsNamedAndBothLevelsAreAborted() throws MPIException {
        Tree tree = new Tree(8, 3);
        Node node = new Node(8, true);
        TwoLevelLoop loop = new TwoLevelLoop(TIMEOUT);
        assertEquals("tree segment 3", loop.run(tree, node, true));
        assertFalse(loop.stalledInNode());
        assertEquals(3, node.passed, "the node never ran ahead of the tree");
        assertTrue(tree.aborted && node.aborted);
    }

    @Test
    void aStalledNodeIsNamedAsTheNodes() throws MPIException {
        Node node = new Node(4, true);
        TwoLevelLoop loop = new TwoLevelLoop(TIMEOUT);
        assertEquals("node chunk 0", loop.run(new Tree(0, 0), node, true));
        assertTrue(loop.stalledInNode());
        assertTrue(node.aborted);
    }

    @Test
    void anErrorAbortsBothLevelsAndIsRethrown() {
        Tree tree = new Tree(8, Integer.MAX_VALUE);
        tree.failure = new IllegalStateException("peer gone");
        Node node = new Node(8, true);
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> new TwoLevelLoop(TIMEOUT).run(tree, node, true));
        assertSame(tree.failure, e);
        assertTrue(tree.aborted && node.aborted);
    }
}
