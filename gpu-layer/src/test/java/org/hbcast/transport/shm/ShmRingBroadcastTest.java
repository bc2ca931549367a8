package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.RingPipeline;
import org.hbcast.engine.RingRole;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Broadcasts along real shared-memory rings: one thread per rank, real /dev/shm inboxes, real direct
 * buffers, every byte of every rank compared after every call.
 */
@Timeout(60)
class ShmRingBroadcastTest {
    private static final Duration RING_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration TEST_LIMIT = Duration.ofSeconds(50);
    private static final int GUARD_BYTES = 256;

    private ShmTestDirectory dir;

    /** One broadcast: the chain starts at node rank {@code start}. */
    record Call(int start, int bytes, int chunkBytes) {}

    @BeforeEach
    void createDirectory() throws IOException {
        dir = ShmTestDirectory.create();
    }

    @AfterEach
    void removeDirectory() throws IOException {
        dir.close();
    }

    @Test
    void everyRingLengthEveryStartAroundEveryBoundary() throws Exception {
        final int chunk = 16 * 1024;
        final int[] sizes = {0, 1, 7, chunk - 1, chunk, chunk + 1, 3 * 1024 * 1024 + 13};
        for (int n = 1; n <= 8; n++) {
            final List<Call> calls = new ArrayList<>();
            for (int start = 0; start < n; start++) {
                for (final int size : sizes) {
                    calls.add(new Call(start, size, chunk));
                }
            }
            broadcast(n, 8, chunk, calls, 11 * n);
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void largeMessageInMegabyteChunks() throws Exception {
        final int chunk = 1024 * 1024;
        broadcast(4, 8, chunk, List.of(new Call(1, 9 * chunk + 5, chunk), new Call(3, 2 * chunk - 3, chunk)), 5);
    }

    @Test
    void singleSlotRing() throws Exception {
        final int chunk = 4096;
        final List<Call> calls = new ArrayList<>();
        for (int start = 0; start < 5; start++) {
            calls.add(new Call(start, 37 * chunk + 11, chunk));
            calls.add(new Call(start, chunk, chunk));
            calls.add(new Call(start, 3, chunk));
        }
        broadcast(5, 1, chunk, calls, 17);
    }

    @Test
    void backToBackCallsWithChangingStartsSizesAndChunks() throws Exception {
        final int n = 6;
        final int slotBytes = 8192;
        final Random random = new Random(1234);
        final List<Call> calls = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            final int bytes = random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(24 * slotBytes);
            final int chunk = 1 + random.nextInt(slotBytes);
            calls.add(new Call(random.nextInt(n), bytes, chunk));
        }
        broadcast(n, 2, slotBytes, calls, 99);
    }

    @Test
    void slowReceiverIsNeverOverrun() throws Exception {
        final int n = 3;
        final int slots = 2;
        final int chunk = 1024;
        final Call call = new Call(0, 60 * chunk + 1, chunk);
        try (ShmTestNode node = ShmTestNode.create(dir.path(), n, slots, chunk)) {
            final AtomicBoolean watching = new AtomicBoolean(true);
            final AtomicReference<String> violation = new AtomicReference<>();
            final AtomicLong fullest = new AtomicLong();
            final Thread watcher =
                    new Thread(() -> watchCredit(node, slots, watching, violation, fullest), "credit-watcher");
            watcher.start();
            Ranks.run(n, TEST_LIMIT, rank -> {
                final ByteBuffer mine = ByteBuffer.allocateDirect(call.bytes() + GUARD_BYTES);
                final ByteBuffer expected = ByteBuffer.allocateDirect(call.bytes() + GUARD_BYTES);
                Patterns.fill(expected, 3, call.bytes());
                if (rank == call.start()) {
                    Patterns.fill(mine, 3, call.bytes());
                }
                final ShmRingLinks links = node.links(rank);
                final RingPipeline<MutableDirectBuffer> ring = links.newPipeline()
                        .reset(links.role(call.start()), new UnsafeBuffer(mine), call.bytes(), call.chunkBytes());
                final long deadline = System.nanoTime() + RING_TIMEOUT.toNanos();
                while (!ring.isDone()) {
                    if (ring.role() == RingRole.LAST) {
                        // The slow consumer: the two ranks before it keep finding their slots full.
                        LockSupport.parkNanos(200_000);
                    }
                    if (ring.progress() == 0) {
                        Thread.yield();
                    }
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("rank " + rank + " waits for " + ring.describeWait());
                    }
                }
                assertNull(Patterns.firstDifference(mine, expected, 0, call.bytes()), "rank " + rank);
            });
            watching.set(false);
            watcher.join();
            assertNull(violation.get());
            assertEquals(slots, fullest.get(), "the senders should have found every slot taken at some point");
            for (int rank = 0; rank < n - 1; rank++) {
                assertEquals(61, node.links(rank).outbox().posted());
                assertEquals(61, node.links(rank + 1).inbox().consumed());
            }
        }
    }

    private static void watchCredit(
            final ShmTestNode node,
            final int slots,
            final AtomicBoolean watching,
            final AtomicReference<String> violation,
            final AtomicLong fullest) {
        while (watching.get()) {
            for (int rank = 0; rank < node.size(); rank++) {
                final UnsafeBuffer inbox = node.links(rank).inbox().segment().buffer();
                // Tail first: head only grows, so a later head can only hide a violation, never invent one.
                final long tail = inbox.getLongVolatile(LinkLayout.TAIL_OFFSET);
                final long head = inbox.getLongVolatile(LinkLayout.HEAD_OFFSET);
                fullest.accumulateAndGet(tail - head, Math::max);
                if (tail - head > slots) {
                    violation.compareAndSet(null, "inbox of rank " + rank + ": tail " + tail + ", head " + head);
                }
            }
            Thread.onSpinWait();
        }
    }

    @Test
    void firstRankFedChunkByChunkFromAnotherThread() throws Exception {
        final int n = 4;
        final int chunk = 4096;
        final int leader = 2;
        final int bytes = 50 * chunk + 77;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), n, 4, chunk)) {
            Ranks.run(n, TEST_LIMIT, rank -> {
                final ByteBuffer mine = ByteBuffer.allocateDirect(bytes);
                final ByteBuffer expected = ByteBuffer.allocateDirect(bytes);
                Patterns.fill(expected, 8, bytes);
                final RingPipeline<MutableDirectBuffer> ring = node.links(rank).newPipeline();
                final UnsafeBuffer memory = new UnsafeBuffer(mine);
                if (rank == leader) {
                    ring.resetFed(memory, bytes, chunk);
                    // Chunk k lands in the leader's buffer some time after chunk k - 1.
                    Drive.fed(new Delivery(expected, mine, bytes, chunk, chunk, 3, 100_000, bytes), ring, RING_TIMEOUT);
                } else {
                    ring.reset(node.links(rank).role(leader), memory, bytes, chunk);
                    Drive.alone(ring, RING_TIMEOUT);
                }
                assertNull(Patterns.firstDifference(mine, expected, 0, bytes), "rank " + rank);
            });
        }
    }

    @Test
    void firstRankFedInTheSameLoopInPiecesNotAlignedToChunks() throws Exception {
        final int n = 3;
        final int chunk = 4096;
        final int piece = 10_000;
        final int bytes = 40 * chunk + 3;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), n, 8, chunk)) {
            Ranks.run(n, TEST_LIMIT, rank -> {
                final ByteBuffer mine = ByteBuffer.allocateDirect(bytes);
                final ByteBuffer expected = ByteBuffer.allocateDirect(bytes);
                Patterns.fill(expected, 21, bytes);
                final RingPipeline<MutableDirectBuffer> ring = node.links(rank).newPipeline();
                if (rank == 0) {
                    ring.resetFed(new UnsafeBuffer(mine), bytes, chunk);
                    // The leader's loop: the "inter-node tree" (a piece lands every third round) feeds
                    // the ring in the library's one loop.
                    Drive.fed(new Delivery(expected, mine, bytes, chunk, piece, 3, 0, bytes), ring, RING_TIMEOUT);
                } else {
                    ring.reset(node.links(rank).role(0), new UnsafeBuffer(mine), bytes, chunk);
                    Drive.alone(ring, RING_TIMEOUT);
                }
                assertNull(Patterns.firstDifference(mine, expected, 0, bytes), "rank " + rank);
            });
        }
    }

    @Test
    void chunkLargerThanSlotIsRefusedBeforeAnythingMoves() throws Exception {
        final int maxChunk = 1000;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 2, 2, maxChunk)) {
            final RingPipeline<MutableDirectBuffer> ring = node.links(0).newPipeline();
            final IllegalArgumentException ex = assertThrows(
                    IllegalArgumentException.class,
                    () -> ring.reset(RingRole.FIRST, new UnsafeBuffer(new byte[10_000]), 10_000, 1025));
            assertEquals("chunks of 1025 bytes do not fit the ring's slots of 1024", ex.getMessage());
            assertEquals(0, node.links(0).outbox().posted());
        }
        broadcast(2, 2, maxChunk, List.of(new Call(1, 10_000, 1024), new Call(0, 1024, 1000)), 4);
    }

    /**
     * Runs {@code calls} back to back on a fresh ring of {@code n} ranks, checks every byte of every
     * rank after every call, and checks that the link counters carried over from call to call.
     */
    private void broadcast(final int n, final int slots, final int maxChunk, final List<Call> calls, final long seed)
            throws Exception {
        final int capacity = calls.stream().mapToInt(Call::bytes).max().orElse(0) + GUARD_BYTES;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), n, slots, maxChunk)) {
            Ranks.run(n, TEST_LIMIT, rank -> {
                final ShmRingLinks links = node.links(rank);
                final RingPipeline<MutableDirectBuffer> ring = links.newPipeline();
                final ByteBuffer mine = ByteBuffer.allocateDirect(capacity);
                final ByteBuffer expected = ByteBuffer.allocateDirect(capacity);
                final UnsafeBuffer memory = new UnsafeBuffer(mine);
                for (int c = 0; c < calls.size(); c++) {
                    final Call call = calls.get(c);
                    final long callSeed = seed * 1_000_003L + c;
                    final byte untouched = (byte) (0xA5 ^ c);
                    Patterns.fill(expected, callSeed, call.bytes());
                    if (rank == call.start()) {
                        Patterns.fill(mine, callSeed, call.bytes());
                    } else {
                        Patterns.fill(mine, 0, call.bytes(), (byte) ~untouched);
                    }
                    Patterns.fill(mine, call.bytes(), capacity, untouched);
                    ring.reset(links.role(call.start()), memory, call.bytes(), call.chunkBytes());
                    Drive.alone(ring, RING_TIMEOUT);
                    final String where = "rank " + rank + ", call " + c + " " + call + ": ";
                    assertNull(Patterns.firstDifference(mine, expected, 0, call.bytes()), where);
                    assertNull(Patterns.firstDifference(mine, call.bytes(), capacity, untouched), where);
                }
            });
            assertCountersCarriedOver(node, calls);
        }
    }

    private static void assertCountersCarriedOver(final ShmTestNode node, final List<Call> calls) {
        final int n = node.size();
        if (n == 1) {
            return;
        }
        final int slotBytes = node.links(0).inbox().maxChunkBytes();
        for (int rank = 0; rank < n; rank++) {
            long chunks = 0;
            for (final Call call : calls) {
                if (RingRole.of(n, rank, call.start()).sends()) {
                    chunks += (call.bytes() + call.chunkBytes() - 1) / call.chunkBytes();
                }
            }
            assertEquals(chunks, node.links(rank).outbox().posted(), "tail of link " + rank + " -> right");
            assertEquals(chunks, node.links((rank + 1) % n).inbox().consumed(), "head of link " + rank + " -> right");
        }
    }
}
