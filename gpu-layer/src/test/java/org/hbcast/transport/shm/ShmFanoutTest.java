package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.RingAbortedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Broadcasts through a real /dev/shm fan-out segment: one thread per node rank, each with its own
 * mapping, every byte and a guard zone checked after every call.
 */
@Timeout(60)
class ShmFanoutTest {
    private static final Duration TEST_LIMIT = Duration.ofSeconds(50);
    private static final long STALL_LIMIT_NS = Duration.ofSeconds(20).toNanos();
    private static final int GUARD_BYTES = 256;
    private static final byte GUARD = (byte) 0xA5;

    /** One call: node rank {@code writer} holds the data (fed chunk by chunk when {@code fed}). */
    record Call(int writer, int bytes, int chunkBytes, boolean fed) {}

    private ShmTestDirectory dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = ShmTestDirectory.create();
    }

    @AfterEach
    void removeDirectory() throws IOException {
        dir.close();
    }

    @Test
    void everyNodeSizeEveryWriterAroundEveryBoundary() throws Exception {
        final int chunk = 16 * 1024;
        final int[] sizes = {1, 7, chunk - 1, chunk, chunk + 1, 3 * 1024 * 1024 + 13};
        for (int n = 2; n <= 6; n++) {
            final List<Call> calls = new ArrayList<>();
            for (int writer = 0; writer < n; writer++) {
                for (final int size : sizes) {
                    calls.add(new Call(writer, size, chunk, size % 2 == 1));
                }
            }
            broadcast(n, 8, chunk, calls);
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void randomCallsOnTwoSlotsWithChangingWritersAndChunks() throws Exception {
        final int n = 5;
        final int slotBytes = 8192;
        final Random random = new Random(4321);
        // Two slots and a writer that changes every call: a reader still finishing call k while the
        // next writer starts call k + 1 is the case the sequence numbering must get right.
        final List<Call> calls = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            final int bytes = 1 + random.nextInt(30 * slotBytes);
            calls.add(new Call(random.nextInt(n), bytes, 1 + random.nextInt(slotBytes), random.nextBoolean()));
        }
        broadcast(n, 2, slotBytes, calls);
    }

    @Test
    void slowReaderHoldsTheWriterBackAndIsNeverOverrun() throws Exception {
        final int n = 3;
        final int slots = 2;
        final int chunk = 1024;
        final List<Call> calls = List.of(
                new Call(0, 60 * chunk + 1, chunk, false),
                new Call(1, 40 * chunk, chunk, false),
                new Call(2, 33 * chunk + 5, chunk, true));
        broadcastWithSlowRank(n, slots, chunk, calls, 2);
        broadcastWithSlowRank(n, slots, chunk, calls, 1);
    }

    @Test
    void aReaderStuckBehindTheWriterNamesTheReaderThatHoldsTheWriterBack() throws Exception {
        try (ShmFanout first = ShmFanout.create(dir.path(), 0, 3, 4, 4096);
                ShmFanout second = ShmFanout.open(first.path(), 1, 3);
                ShmFanout third = ShmFanout.open(first.path(), 2, 3)) {
            first.unlink();
            final UnsafeBuffer memory = new UnsafeBuffer(ByteBuffer.allocateDirect(10 * 4096));
            first.pipeline().startWriter(memory, 10 * 4096, 4096);
            second.pipeline().startReader(0, new UnsafeBuffer(ByteBuffer.allocateDirect(10 * 4096)), 10 * 4096, 4096);
            assertEquals(0, second.pipeline().progress());
            assertEquals(
                    "chunk 0 of 10 from node rank 0 (fan-out writer)",
                    second.pipeline().describeWait());
            // Node rank 2 never starts: the writer fills the 4 slots and stops; node rank 1 reads them and waits.
            assertEquals(4, first.pipeline().progress());
            assertEquals(4, second.pipeline().progress());
            assertEquals(0, first.pipeline().progress());
            assertTrue(
                    first.pipeline().describeWait().startsWith("node rank 2 to free a fan-out slot"),
                    first.pipeline().describeWait());
            assertEquals(
                    "chunk 4 of 10 from node rank 0 (fan-out writer), which waits for node rank 2 to free a fan-out"
                            + " slot (it has consumed 0 of 10 chunks)",
                    second.pipeline().describeWait());
            third.pipeline().startReader(0, new UnsafeBuffer(ByteBuffer.allocateDirect(10 * 4096)), 10 * 4096, 4096);
            assertEquals(4, third.pipeline().progress());
            assertEquals(
                    "chunk 4 of 10 from node rank 0 (fan-out writer)",
                    second.pipeline().describeWait());
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void anAbortMakesTheOthersFailFast() throws Exception {
        final Path directory = dir.path();
        try (ShmFanout first = ShmFanout.create(directory, 0, 3, 4, 4096);
                ShmFanout second = ShmFanout.open(first.path(), 1, 3);
                ShmFanout third = ShmFanout.open(first.path(), 2, 3)) {
            first.unlink();
            final UnsafeBuffer memory = new UnsafeBuffer(ByteBuffer.allocateDirect(10 * 4096));
            second.pipeline().startReader(0, memory, 10 * 4096, 4096);
            third.pipeline().startReader(0, new UnsafeBuffer(ByteBuffer.allocateDirect(10 * 4096)), 10 * 4096, 4096);
            assertEquals(0, second.pipeline().progress());
            second.pipeline().abort();
            final RingAbortedException ex = assertThrows(RingAbortedException.class, third.pipeline()::progress);
            assertEquals(1, ex.originRank());
            assertTrue(ex.getMessage().contains("node rank 1"), ex.getMessage());
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void openRefusesAForeignOrMismatchedSegment() throws Exception {
        try (ShmFanout fanout = ShmFanout.create(dir.path(), 0, 3, 2, 4096)) {
            final IOException wrongSize = assertThrows(IOException.class, () -> ShmFanout.open(fanout.path(), 1, 4));
            assertTrue(wrongSize.getMessage().contains("serves 3 ranks, expected 4"), wrongSize.getMessage());
            try (ShmInbox inbox = ShmInbox.create(dir.path(), 0, 2, 4096)) {
                final IOException foreign = assertThrows(IOException.class, () -> ShmFanout.open(inbox.path(), 1, 3));
                assertTrue(foreign.getMessage().contains("not a fan-out segment"), foreign.getMessage());
            }
        }
        assertThrows(IllegalArgumentException.class, () -> ShmFanout.create(dir.path(), 3, 3, 2, 4096));
        assertThrows(IllegalArgumentException.class, () -> ShmFanout.create(dir.path(), 0, 1, 2, 4096));
    }

    private void broadcast(final int n, final int slots, final int slotBytes, final List<Call> calls) throws Exception {
        broadcastWithSlowRank(n, slots, slotBytes, calls, -1);
    }

    private void broadcastWithSlowRank(
            final int n, final int slots, final int slotBytes, final List<Call> calls, final int slowRank)
            throws Exception {
        final ShmFanout[] fanouts = new ShmFanout[n];
        fanouts[0] = ShmFanout.create(dir.path(), 0, n, slots, slotBytes);
        try {
            for (int p = 1; p < n; p++) {
                fanouts[p] = ShmFanout.open(fanouts[0].path(), p, n);
            }
            fanouts[0].unlink();
            Ranks.run(n, TEST_LIMIT, rank -> runCalls(fanouts[rank], rank, calls, rank == slowRank));
        } finally {
            for (final ShmFanout fanout : fanouts) {
                if (fanout != null) {
                    fanout.close();
                }
            }
        }
    }

    private static void runCalls(final ShmFanout fanout, final int rank, final List<Call> calls, final boolean slow) {
        int index = 0;
        for (final Call call : calls) {
            final long seed = 1000L * index++ + call.bytes();
            final ByteBuffer mine = ByteBuffer.allocateDirect(call.bytes() + GUARD_BYTES);
            final ByteBuffer expected = ByteBuffer.allocateDirect(call.bytes() + GUARD_BYTES);
            Patterns.fill(expected, seed, call.bytes());
            Patterns.fill(mine, call.bytes(), call.bytes() + GUARD_BYTES, GUARD);
            final UnsafeBuffer memory = new UnsafeBuffer(mine);
            final int chunks = (call.bytes() + call.chunkBytes() - 1) / call.chunkBytes();
            int fedChunks = 0;
            if (rank == call.writer()) {
                Patterns.fill(mine, seed, call.bytes());
                if (call.fed()) {
                    fanout.pipeline().startFedWriter(memory, call.bytes(), call.chunkBytes());
                } else {
                    fanout.pipeline().startWriter(memory, call.bytes(), call.chunkBytes());
                }
            } else {
                fanout.pipeline().startReader(call.writer(), memory, call.bytes(), call.chunkBytes());
            }
            long stalledSince = System.nanoTime();
            while (!fanout.pipeline().isDone()) {
                if (rank == call.writer() && call.fed() && fedChunks < chunks) {
                    fanout.pipeline().feed(++fedChunks);
                }
                if (slow) {
                    LockSupport.parkNanos(50_000);
                }
                if (fanout.pipeline().progress() > 0) {
                    stalledSince = System.nanoTime();
                } else if (System.nanoTime() - stalledSince > STALL_LIMIT_NS) {
                    throw new AssertionError("rank " + rank + " stalled waiting for "
                            + fanout.pipeline().describeWait());
                } else {
                    Thread.yield();
                }
            }
            assertNull(Patterns.firstDifference(mine, expected, 0, call.bytes()), "rank " + rank + " call " + call);
            assertNull(
                    Patterns.firstDifference(mine, call.bytes(), call.bytes() + GUARD_BYTES, GUARD),
                    "guard zone of rank " + rank + " call " + call);
        }
    }
}
