package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CallBoardTest {
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
    void theFirstClaimWinsAndEveryRankReadsItsHeader() throws IOException {
        try (CallBoard zero = CallBoard.create(dir.path(), 0, 3);
                CallBoard one = CallBoard.open(zero.path(), 1, 3);
                CallBoard two = CallBoard.open(zero.path(), 2, 3)) {
            assertFalse(one.isPosted(1));
            assertTrue(two.claim(1));
            assertFalse(zero.claim(1), "a second claimer of the same call loses");
            assertFalse(one.isPosted(1), "claimed is not posted");
            two.post(1, 4096, 2, 8);
            for (final CallBoard b : List.of(zero, one, two)) {
                assertTrue(b.isPosted(1));
                assertEquals(4096, b.bytes(1));
                assertEquals(2, b.rank(1));
                assertEquals(8, b.elementBytes(1));
                assertFalse(b.isPosted(2));
            }
            assertFalse(one.claim(3), "call 3 cannot be claimed before call 2");
            assertTrue(one.claim(2));
            one.post(2, CallBoard.REFUSED, 1, 0);
            assertEquals(CallBoard.REFUSED, zero.bytes(2));
        }
    }

    @Test
    void aClaimerWaitsUntilEveryOtherRankHasReadTheEntryItReuses() throws IOException {
        try (CallBoard zero = CallBoard.create(dir.path(), 0, 2);
                CallBoard one = CallBoard.open(zero.path(), 1, 2)) {
            for (long call = 1; call <= CallBoard.ENTRIES; call++) {
                assertTrue(zero.hasRoom(call, 0), "call " + call);
                assertTrue(zero.claim(call));
                zero.post(call, call, 0, 1);
                zero.markRead(call);
            }
            assertFalse(zero.hasRoom(CallBoard.ENTRIES + 1, 0), "node rank 1 has read nothing yet");
            assertEquals(1, zero.slowestReader());
            one.markRead(1);
            assertTrue(zero.hasRoom(CallBoard.ENTRIES + 1, 0));
            assertFalse(zero.hasRoom(CallBoard.ENTRIES + 2, 0));
            assertTrue(one.hasRoom(CallBoard.ENTRIES + 2, 0), "a rank does not wait for itself");
        }
    }

    @Test
    void aLargePayloadWaitsForTheReadersOfThePayloadsItWouldOverwrite() throws IOException {
        final int largest = CallBoard.INLINE_BYTES;
        final int fit = CallBoard.RING_BYTES / largest;
        try (CallBoard zero = CallBoard.create(dir.path(), 0, 2);
                CallBoard one = CallBoard.open(zero.path(), 1, 2)) {
            for (long call = 1; call <= fit; call++) {
                assertTrue(zero.hasRoom(call, largest), "call " + call);
                assertTrue(zero.claim(call));
                fill(zero.payloadAddressToWrite(call, largest), largest, call);
                zero.post(call, largest, 0, 1, true);
                zero.markRead(call);
            }
            assertFalse(zero.hasRoom(fit + 1, largest), "node rank 1 has read no payload yet");
            assertTrue(zero.hasRoom(fit + 1, 0), "a header alone needs no room in the ring");
            assertFalse(zero.hasRoom(fit + 1, 1), "the ring is full: even a byte would overwrite call 1's payload");
            check(one.payloadAddress(1), largest, 1);
            one.markRead(1);
            assertTrue(zero.hasRoom(fit + 1, largest), "call 1's payload is read: its place is free");
            assertTrue(zero.claim(fit + 1));
            zero.post(fit + 1, largest, 0, 1, true);
            assertFalse(zero.hasRoom(fit + 2, 1), "call 2's payload is not read yet");
        }
    }

    @Test
    void payloadsOfEverySizeComeOutIntactLapAfterLap() throws IOException {
        final java.util.Random random = new java.util.Random(42);
        final int lag = 5;
        try (CallBoard zero = CallBoard.create(dir.path(), 0, 2);
                CallBoard one = CallBoard.open(zero.path(), 1, 2)) {
            final long calls = 2000;
            final long[] sizes = new long[(int) calls + 1];
            long posted = 0;
            long read = 0;
            final long ring = one.payloadAddress(0); // call 0: the zeroed entry, the ring's start
            while (read < calls) {
                final long next = posted + 1;
                final long size = next <= calls ? pick(random) : 0;
                if (next <= calls && next - read <= lag && zero.hasRoom(next, size)) {
                    assertTrue(zero.claim(next));
                    final long address = zero.payloadAddressToWrite(next, size);
                    fill(address, (int) size, next);
                    zero.post(next, size, 0, 1, true);
                    zero.markRead(next);
                    sizes[(int) next] = size;
                    posted = next;
                    continue;
                }
                assertTrue(read < posted, "the writer has no room although the reader has read every call");
                final long call = ++read;
                assertTrue(one.isPosted(call));
                assertTrue(one.isInline(call));
                assertEquals(sizes[(int) call], one.bytes(call));
                check(one.payloadAddress(call), (int) sizes[(int) call], call);
                final long offset = one.payloadAddress(call) - ring;
                assertTrue(
                        offset % 64 == 0 && offset + sizes[(int) call] <= CallBoard.RING_BYTES,
                        "call " + call + "'s payload lies at " + offset + " in the ring, aligned and not wrapping");
                one.markRead(call);
            }
        }
    }

    /** Payload sizes with the edges: none, one byte, the largest, and any between. */
    private static long pick(final java.util.Random random) {
        return switch (random.nextInt(8)) {
            case 0 -> 0;
            case 1 -> 1;
            case 2 -> CallBoard.INLINE_BYTES;
            default -> 1 + random.nextInt(CallBoard.INLINE_BYTES);
        };
    }

    private static void fill(final long address, final int bytes, final long call) {
        final org.agrona.concurrent.UnsafeBuffer payload = new org.agrona.concurrent.UnsafeBuffer(address, bytes);
        for (int i = 0; i < bytes; i++) {
            payload.putByte(i, (byte) (call * 31 + i));
        }
    }

    private static void check(final long address, final int bytes, final long call) {
        final org.agrona.concurrent.UnsafeBuffer payload = new org.agrona.concurrent.UnsafeBuffer(address, bytes);
        for (int i = 0; i < bytes; i++) {
            if (payload.getByte(i) != (byte) (call * 31 + i)) {
                throw new AssertionError("call " + call + ": byte " + i + " of " + bytes + " was overwritten");
            }
        }
    }

    @Test
    void anOpenerRefusesAnotherNodeSizeOrAForeignSegment() throws IOException {
        try (CallBoard zero = CallBoard.create(dir.path(), 0, 3)) {
            assertThrows(IOException.class, () -> CallBoard.open(zero.path(), 1, 4));
            assertThrows(IllegalArgumentException.class, () -> CallBoard.open(zero.path(), 3, 3));
        }
        try (SharedSegment other = SharedSegment.create(dir.path(), CallBoard.segmentBytes(3))) {
            final IOException e = assertThrows(IOException.class, () -> CallBoard.open(other.path(), 1, 3));
            assertTrue(e.getMessage().contains("is not a call board"), e.getMessage());
        }
    }

    /**
     * Four threads play a node's ranks through 5,000 calls whose root rotates, two of them racing to
     * claim each call: every rank sees exactly one header per call, the winner's, complete.
     */
    @Test
    void ranksOnThreadsAgreeOnEveryHeaderWhileRootsRace() throws Exception {
        final int ranks = 4;
        final long calls = 5_000;
        final List<CallBoard> boards = new ArrayList<>();
        boards.add(CallBoard.create(dir.path(), 0, ranks));
        for (int p = 1; p < ranks; p++) {
            boards.add(CallBoard.open(boards.get(0).path(), p, ranks));
        }
        final long[][] seen = new long[ranks][(int) calls + 1];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < ranks; p++) {
            final int me = p;
            final CallBoard board = boards.get(p);
            threads.add(new Thread(() -> {
                try {
                    for (long call = 1; call <= calls; call++) {
                        final boolean contender = me == call % ranks || me == (call + 1) % ranks;
                        if (contender) {
                            while (!board.hasRoom(call, 0)) {
                                Thread.yield();
                            }
                            if (board.claim(call)) {
                                board.post(call, call * 10 + me, me, 4);
                            }
                        }
                        while (!board.isPosted(call)) {
                            Thread.yield();
                        }
                        final int rank = board.rank(call);
                        if (board.bytes(call) != call * 10 + rank || board.elementBytes(call) != 4) {
                            throw new AssertionError("rank " + me + " read a torn header of call " + call);
                        }
                        seen[me][(int) call] = rank;
                        board.markRead(call);
                    }
                } catch (final Throwable t) {
                    failure.compareAndSet(null, t);
                }
            }));
        }
        threads.forEach(Thread::start);
        for (final Thread t : threads) {
            t.join(120_000);
            assertFalse(t.isAlive(), "a rank is stuck");
        }
        for (final CallBoard b : boards) {
            b.close();
        }
        assertNull(failure.get());
        for (int call = 1; call <= calls; call++) {
            for (int p = 1; p < ranks; p++) {
                assertEquals(seen[0][call], seen[p][call], "call " + call);
            }
        }
    }
}
