package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.RingAbortedException;
import org.hbcast.engine.RingLink;
import org.hbcast.engine.RingPipeline;
import org.hbcast.engine.RingRole;
import org.hbcast.stage.StageException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Peers that never show up, fail, or disagree: every rank fails with a message naming the peer. */
@Timeout(60)
class ShmRingFailureTest {
    private static final Duration SHORT = Duration.ofMillis(300);
    private static final Duration LONG = Duration.ofSeconds(60);
    private static final Duration TEST_LIMIT = Duration.ofSeconds(30);
    private static final int CHUNK = 1024;

    private ShmTestDirectory dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = ShmTestDirectory.create();
    }

    @AfterEach
    void removeDirectory() throws IOException {
        dir.close();
    }

    private static RingPipeline<MutableDirectBuffer> pipeline(
            final ShmTestNode node, final int rank, final int start, final int bytes) {
        final ShmRingLinks links = node.links(rank);
        return links.newPipeline().reset(links.role(start), new UnsafeBuffer(new byte[bytes]), bytes, CHUNK);
    }

    @Test
    void timeoutNamesTheLeftNeighbourThatNeverSends() throws IOException {
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 3, 2, CHUNK)) {
            final RingPipeline<MutableDirectBuffer> last = pipeline(node, 2, 0, 4 * CHUNK);
            final long started = System.nanoTime();
            final Drive.TimedOut ex = assertThrows(Drive.TimedOut.class, () -> Drive.alone(last, SHORT));
            final long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            assertEquals(
                    "timed out after 300 ms waiting for chunk 1 of 4 from node rank 1 (left neighbour)",
                    ex.getMessage());
            assertTrue(elapsedMs >= 300 && elapsedMs < 10_000, elapsedMs + " ms");
            // It gave up on the ring, so both neighbours will learn at once instead of timing out too.
            assertEquals(2, node.links(2).inbox().abortOrigin());
            assertEquals(2, node.links(2).outbox().abortOrigin());
            assertEquals(RingLink.NOT_ABORTED, node.links(1).inbox().abortOrigin(), "link 0 -> 1 is not its");
        }
    }

    @Test
    void timeoutNamesTheRightNeighbourThatNeverFreesASlot() throws IOException {
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 2, 2, CHUNK)) {
            final RingPipeline<MutableDirectBuffer> first = pipeline(node, 0, 0, 10 * CHUNK);
            final Drive.TimedOut ex = assertThrows(Drive.TimedOut.class, () -> Drive.alone(first, SHORT));
            assertEquals(
                    "timed out after 300 ms waiting for slot credit from node rank 1 "
                            + "(right neighbour) to send chunk 3 of 10",
                    ex.getMessage());
            assertEquals(2, first.chunksSent());
        }
    }

    @Test
    void middleRankKeepsReceivingWhileItsRightNeighbourIsAbsent() throws Exception {
        final int bytes = 20 * CHUNK;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 3, 2, CHUNK)) {
            final AtomicReferenceArray<RingPipeline<MutableDirectBuffer>> rings = new AtomicReferenceArray<>(3);
            final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(3);
            Ranks.run(2, TEST_LIMIT, rank -> {
                rings.set(rank, pipeline(node, rank, 0, bytes));
                try {
                    Drive.alone(rings.get(rank), Duration.ofMillis(500));
                } catch (final StageException ex) {
                    failures.set(rank, ex);
                }
            });
            // The first rank is not held up by the absent third: the middle one buffers what it cannot forward.
            assertNull(failures.get(0));
            assertEquals(20, rings.get(1).chunksReceived());
            assertEquals(
                    "timed out after 500 ms waiting for slot credit from node rank 2 "
                            + "(right neighbour) to forward chunk 3 of 20",
                    failures.get(1).getMessage());
        }
    }

    @Test
    void timeoutOfFedLeaderNamesTheInterNodeLevelAndItsAbortReachesTheRing() throws Exception {
        final int bytes = 3 * CHUNK;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 2, 4, CHUNK)) {
            final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(2);
            Ranks.run(2, TEST_LIMIT, rank -> {
                final RingPipeline<MutableDirectBuffer> ring = node.links(rank).newPipeline();
                final UnsafeBuffer memory = new UnsafeBuffer(new byte[bytes]);
                if (rank == 0) {
                    ring.resetFed(memory, bytes, CHUNK);
                    ring.feed(1);
                } else {
                    ring.reset(RingRole.LAST, memory, bytes, CHUNK);
                }
                try {
                    Drive.alone(ring, rank == 0 ? SHORT : LONG);
                } catch (final StageException ex) {
                    failures.set(rank, ex);
                }
            });
            assertEquals(
                    "timed out after 300 ms waiting for chunk 2 of 3 to arrive from the " + "inter-node level",
                    failures.get(0).getMessage());
            final RingAbortedException aborted = assertInstanceOf(RingAbortedException.class, failures.get(1));
            assertEquals(0, aborted.originRank());
            assertEquals(
                    "ring broadcast aborted by node rank 0; node rank 1 was waiting for chunk 2 of 3 "
                            + "from node rank 0 (left neighbour)",
                    aborted.getMessage());
        }
    }

    @Test
    void abortOfOneRankReachesTheOthersLongBeforeTheirTimeout() throws Exception {
        final int n = 4;
        final int failing = 1;
        final int bytes = 100 * CHUNK;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), n, 2, CHUNK)) {
            final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(n);
            final long started = System.nanoTime();
            Ranks.run(n, TEST_LIMIT, rank -> {
                final RingPipeline<MutableDirectBuffer> ring = pipeline(node, rank, 0, bytes);
                if (rank == failing) {
                    // This rank hits an error of its own before it moves anything.
                    LockSupport.parkNanos(100_000_000);
                    ring.abort();
                    return;
                }
                try {
                    Drive.alone(ring, LONG);
                } catch (final StageException ex) {
                    failures.set(rank, ex);
                }
            });
            final long elapsedMs = (System.nanoTime() - started) / 1_000_000;
            assertTrue(elapsedMs < 10_000, "took " + elapsedMs + " ms");
            for (int rank = 0; rank < n; rank++) {
                if (rank == failing) {
                    continue;
                }
                final RingAbortedException ex =
                        assertInstanceOf(RingAbortedException.class, failures.get(rank), "rank " + rank);
                assertEquals(failing, ex.originRank());
                assertTrue(ex.getMessage().startsWith("ring broadcast aborted by node rank 1"), ex.getMessage());
            }
            // Rank 3 never touches rank 1's links: it heard of the abort from a neighbour that passed it on
            // (rank 2, or rank 0 on the link it shares with rank 3, whichever was first).
            final String heard = failures.get(3).getMessage();
            assertTrue(
                    heard.matches("ring broadcast aborted by node rank 1, reported by node rank "
                            + "(2 \\(left|0 \\(right) neighbour\\); node rank 3 was waiting for chunk 1 of 100 from node rank 2 "
                            + "\\(left neighbour\\)"),
                    heard);
            // An aborted ring stays unusable: the next call fails at once instead of corrupting data.
            final RingAbortedException again =
                    assertThrows(RingAbortedException.class, () -> pipeline(node, 0, 2, CHUNK));
            assertEquals(failing, again.originRank());
        }
    }

    @Test
    void ranksThatDisagreeOnTheSizeFailInsteadOfCorrupting() throws Exception {
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 2, 4, 64)) {
            final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(2);
            Ranks.run(2, TEST_LIMIT, rank -> {
                final int bytes = rank == 0 ? 100 : 90;
                final RingPipeline<MutableDirectBuffer> ring = node.links(rank)
                        .newPipeline()
                        .reset(node.links(rank).role(0), new UnsafeBuffer(new byte[bytes]), bytes, 64);
                try {
                    Drive.alone(ring, LONG);
                } catch (final StageException ex) {
                    failures.set(rank, ex);
                }
            });
            assertNull(failures.get(0));
            assertEquals(
                    "node rank 0 (left neighbour) posted chunk 2 of 2 with 36 bytes, node rank 1 expected 26 "
                            + "(90 bytes in chunks of 64): the ranks disagree on the broadcast size or chunk size",
                    failures.get(1).getMessage());
            assertEquals(1, node.links(0).outbox().abortOrigin());
        }
    }

    @Test
    void resetBeforeThePreviousBroadcastFinishedIsRefused() throws IOException {
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 2, 2, CHUNK)) {
            final RingPipeline<MutableDirectBuffer> last = pipeline(node, 1, 0, 3 * CHUNK);
            final IllegalStateException ex = assertThrows(
                    IllegalStateException.class,
                    () -> last.reset(RingRole.LAST, new UnsafeBuffer(new byte[10]), 10, CHUNK));
            assertEquals(
                    "previous broadcast has not finished: chunk 1 of 3 from node rank 0 (left neighbour)",
                    ex.getMessage());
        }
    }
}
