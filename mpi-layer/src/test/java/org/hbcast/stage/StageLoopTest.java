package org.hbcast.stage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The loop's contract with scripted stages: feeding down a chain, finishing, naming the stalled stage, aborting. */
class StageLoopTest {
    private static final long TIMEOUT = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * A stage that makes one chunk ready per round (up to {@code stallAfter}), and never runs ahead of
     * what it was fed when started fed. It checks the contract of feed as the real stages do.
     */
    private static final class Scripted implements Stage {
        final String name;
        final int chunks;
        final boolean fed;
        final int stallAfter;
        /** When a stage stalled after {@code stallAfter} chunks goes on (its late peer comes); never by default. */
        long resumesAt = Long.MAX_VALUE;

        int available;
        int passed;
        boolean aborted;
        RuntimeException failure;

        Scripted(String name, int chunks, boolean fed, int stallAfter) {
            this.name = name;
            this.chunks = chunks;
            this.fed = fed;
            this.stallAfter = stallAfter;
        }

        @Override
        public int progress() {
            if (failure != null) {
                throw failure;
            }
            boolean resumed = resumesAt != Long.MAX_VALUE && System.nanoTime() > resumesAt;
            int limit = Math.min(fed ? available : chunks, resumed ? chunks : stallAfter);
            if (passed < limit) {
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
        public int chunkCount() {
            return chunks;
        }

        @Override
        public int chunksReady() {
            return passed;
        }

        @Override
        public void feed(int n) {
            assertTrue(fed, name + " is not fed");
            assertTrue(n >= available && n <= chunks, "fed chunks grow within the call: " + n);
            available = n;
        }

        @Override
        public String describeWait() {
            return name + " chunk " + passed;
        }

        @Override
        public void abort() {
            aborted = true;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private static Scripted stage(String name, int chunks, boolean fed) {
        return new Scripted(name, chunks, fed, Integer.MAX_VALUE);
    }

    @Test
    void aChainOfFedStagesPassesOnOnlyWhatIsReadyAndAllFinish() {
        // A device leader's call: tree, staging to the GPU (fed), node ring (fed).
        Scripted tree = stage("tree", 8, false);
        Scripted staging = stage("staging", 8, true);
        Scripted node = stage("node", 8, true);
        assertNull(new StageLoop(TIMEOUT)
                .add(tree, false)
                .add(staging, true)
                .add(node, true)
                .run());
        assertTrue(tree.isDone() && staging.isDone() && node.isDone());
        assertFalse(tree.aborted || staging.aborted || node.aborted);
    }

    @Test
    void timedStagesNoteWhenEachFinishedAndClearForgetsIt() {
        // A leader's call: the tree, then the node's ring fed by it; the ring cannot finish before the tree.
        Scripted tree = stage("tree", 6, false);
        Scripted node = stage("node", 6, true);
        StageLoop loop = new StageLoop(TIMEOUT).timeStages(true);
        long before = System.nanoTime();
        assertNull(loop.add(tree, false).add(node, true).run());
        long after = System.nanoTime();
        assertEquals(2, loop.count());
        assertSame(tree, loop.stage(0));
        assertSame(node, loop.stage(1));
        assertTrue(loop.doneAtNs(0) >= before && loop.doneAtNs(0) <= after, "tree's time within the run");
        assertTrue(loop.doneAtNs(1) >= loop.doneAtNs(0) && loop.doneAtNs(1) <= after, "node done after the tree");
        loop.clear();
        assertEquals(0, loop.count());
        assertEquals(0, loop.doneAtNs(0));
        assertEquals(0, loop.doneAtNs(1));
    }

    @Test
    void untimedStagesNoteNothing() {
        StageLoop loop = new StageLoop(TIMEOUT);
        assertNull(loop.add(stage("tree", 3, false), false).run());
        assertEquals(0, loop.doneAtNs(0));
    }

    @Test
    void anUnfedStageAfterAnotherRunsOnItsOwn() {
        // The root's leader: tree and node both hold the data already.
        Scripted tree = stage("tree", 5, false);
        Scripted node = stage("node", 5, false);
        assertNull(new StageLoop(TIMEOUT).add(tree, false).add(node, false).run());
        assertTrue(tree.isDone() && node.isDone());
    }

    @Test
    void aCallOfNoStagesOrNoChunksIsDoneAtOnce() {
        assertNull(new StageLoop(TIMEOUT).run());
        assertNull(new StageLoop(TIMEOUT)
                .add(stage("tree", 0, false), false)
                .add(stage("node", 0, true), true)
                .run());
    }

    @Test
    void aStalledStageIsReturnedAndEveryStageAborted() {
        Scripted tree = new Scripted("tree", 8, false, 3);
        Scripted node = stage("node", 8, true);
        assertSame(tree, new StageLoop(TIMEOUT).add(tree, false).add(node, true).run());
        assertEquals(3, node.passed, "the node never ran ahead of the tree");
        assertTrue(tree.aborted && node.aborted);
    }

    @Test
    void underALimitThatWaitsOnALateStageIsReportedAndTheCallFinishes() {
        // The tree's peer is late for four periods, then comes: as with Open MPI, the call completes.
        Scripted tree = new Scripted("tree", 8, false, 3);
        tree.resumesAt = System.nanoTime() + 4 * TIMEOUT;
        Scripted node = stage("node", 8, true);
        List<String> reports = new ArrayList<>();
        WaitLimit limit = WaitLimit.reportingTo(TIMEOUT, "rank 1", reports::add);
        limit.call(3);
        assertNull(new StageLoop(ProgressWait.backingOff(limit))
                .add(tree, false)
                .add(node, true)
                .run());
        assertTrue(tree.isDone() && node.isDone());
        assertFalse(tree.aborted || node.aborted, "a stage was aborted");
        assertTrue(reports.size() >= 2 && reports.size() <= 4, reports.toString());
        for (String r : reports) {
            assertTrue(r.startsWith("rank 1: call 3 still waiting after ") && r.contains(" s for tree chunk 3;"), r);
        }
    }

    @Test
    void theFirstStageNotDoneIsTheOneNamed() {
        Scripted tree = stage("tree", 4, false);
        Scripted node = new Scripted("node", 4, true, 1);
        assertSame(node, new StageLoop(TIMEOUT).add(tree, false).add(node, true).run());
        assertEquals("node chunk 1", node.describeWait());
        assertTrue(tree.aborted && node.aborted);
    }

    @Test
    void anErrorAbortsEveryStageAndIsRethrown() {
        Scripted tree = stage("tree", 8, false);
        Scripted node = stage("node", 8, true);
        node.failure = new StageException("peer gone");
        StageException e = assertThrows(
                StageException.class,
                () -> new StageLoop(TIMEOUT).add(tree, false).add(node, true).run());
        assertSame(node.failure, e);
        assertTrue(tree.aborted && node.aborted);
    }

    @Test
    void stagesThatCutTheCallDifferentlyAreRefusedBeforeAnythingMoves() {
        Scripted tree = stage("tree", 8, false);
        Scripted node = stage("node", 7, true);
        StageLoop loop = new StageLoop(TIMEOUT).add(tree, false);
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> loop.add(node, true));
        assertEquals("stages cut the call differently: tree into 8 chunks, node into 7", e.getMessage());
        assertEquals(0, tree.passed + node.passed);
    }

    @Test
    void theFirstStageCannotBeFedAndAtMostFourStagesRun() {
        assertThrows(
                IllegalStateException.class,
                () -> new StageLoop(TIMEOUT)
                        .add(stage("node", 1, true), false)
                        .clear()
                        .add(stage("node", 1, true), true));
        StageLoop loop = new StageLoop(TIMEOUT);
        for (int i = 0; i < StageLoop.MAX_STAGES; i++) {
            loop.add(stage("s" + i, 1, false), false);
        }
        assertThrows(IllegalStateException.class, () -> loop.add(stage("one more", 1, false), false));
    }

    @Test
    void aClearedLoopRunsTheNextCall() {
        StageLoop loop = new StageLoop(TIMEOUT);
        assertNull(loop.add(stage("tree", 3, false), false)
                .add(stage("node", 3, true), true)
                .run());
        Scripted node = stage("node", 5, false);
        assertNull(loop.clear().add(node, false).run());
        assertTrue(node.isDone());
    }

    @Test
    void chunksCutEveryMessageAlike() {
        for (long bytes = 0; bytes <= 300; bytes++) {
            for (int chunk = 1; chunk <= 70; chunk++) {
                int count = Chunks.count(bytes, chunk);
                long covered = 0;
                for (int c = 0; c < count; c++) {
                    assertEquals(covered, Chunks.offset(c, chunk));
                    int length = Chunks.length(c, chunk, bytes);
                    assertTrue(length >= 1 && length <= chunk);
                    assertTrue(c == count - 1 || length == chunk, "only the last chunk is short");
                    covered += length;
                }
                assertEquals(bytes, covered, bytes + " bytes in chunks of " + chunk);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Chunks.count(10, 0));
        assertThrows(IllegalArgumentException.class, () -> Chunks.count(-1, 8));
        assertThrows(IllegalArgumentException.class, () -> Chunks.count(1L << 40, 1));
    }
}
