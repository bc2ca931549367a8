package org.hbcast.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The engine alone, over in-process {@code byte[]} links, with every rank stepped by one thread in a
 * random order: thousands of interleavings (a rank that stalls, a rank that races ahead, slots full or
 * empty) each checked byte for byte, reproducibly.
 */
class RingPipelineTest {
    /** A ring of {@code n} ranks over array links. */
    private static final class ArrayRing {
        final ArrayLink[] links;
        final List<RingPipeline<byte[]>> pipelines = new ArrayList<>();

        ArrayRing(final int n, final int slots, final int slotBytes) {
            links = new ArrayLink[n];
            for (int rank = 0; rank < n; rank++) {
                links[rank] = new ArrayLink(rank, (rank + 1) % n, slots, slotBytes);
            }
            for (int rank = 0; rank < n; rank++) {
                pipelines.add(
                        n == 1
                                ? RingPipeline.alone()
                                : new RingPipeline<>(links[rank].sender, links[(rank + n - 1) % n].receiver));
            }
        }
    }

    @Test
    void randomInterleavingsDeliverEveryByte() {
        final Random random = new Random(20240601);
        for (int trial = 0; trial < 300; trial++) {
            final int n = 1 + random.nextInt(6);
            final int slots = 1 + random.nextInt(3);
            final int slotBytes = 1 + random.nextInt(40);
            final ArrayRing ring = new ArrayRing(n, slots, slotBytes);
            final long[] posted = new long[n];
            for (int call = 0; call < 8; call++) {
                final int start = random.nextInt(n);
                final int bytes = random.nextInt(6) == 0 ? 0 : 1 + random.nextInt(300);
                final int chunk = 1 + random.nextInt(slotBytes);
                final boolean fed = n > 1 && random.nextBoolean();
                final String what = "trial " + trial + " call " + call + ": n " + n + ", S " + slots + ", slot "
                        + slotBytes + ", start " + start + ", bytes " + bytes + ", chunk " + chunk + ", fed " + fed;
                final byte[] message = new byte[bytes];
                random.nextBytes(message);
                final byte[][] buffers = new byte[n][bytes + 8];
                for (int rank = 0; rank < n; rank++) {
                    final RingRole role = RingRole.of(n, rank, start);
                    if (role == RingRole.FIRST || role == RingRole.ALONE) {
                        System.arraycopy(message, 0, buffers[rank], 0, fed ? 0 : bytes);
                    } else {
                        Arrays.fill(buffers[rank], (byte) 0x3C);
                    }
                    if (role == RingRole.FIRST && fed) {
                        ring.pipelines.get(rank).resetFed(buffers[rank], bytes, chunk);
                    } else {
                        ring.pipelines.get(rank).reset(role, buffers[rank], bytes, chunk);
                    }
                }
                runRandomly(ring, random, start, message, fed, buffers[start], what);
                for (int rank = 0; rank < n; rank++) {
                    assertArrayEquals(message, Arrays.copyOf(buffers[rank], bytes), what + ", rank " + rank);
                    for (int i = bytes; i < bytes + 8; i++) {
                        assertEquals(rank == start ? 0 : 0x3C, buffers[rank][i], what + ", rank " + rank + " overran");
                    }
                    if (n > 1 && RingRole.of(n, rank, start).sends()) {
                        posted[rank] += (bytes + chunk - 1) / chunk;
                    }
                }
            }
            for (int rank = 0; rank < n && n > 1; rank++) {
                assertEquals(posted[rank], ring.links[rank].sender.posted(), "trial " + trial + " link " + rank);
                assertEquals(posted[rank], ring.links[rank].receiver.consumed(), "trial " + trial + " link " + rank);
            }
        }
    }

    /** Steps random ranks (some much more often than others) until all are done; feeds the first if fed. */
    private static void runRandomly(
            final ArrayRing ring,
            final Random random,
            final int start,
            final byte[] message,
            final boolean fed,
            final byte[] firstBuffer,
            final String what) {
        final int n = ring.pipelines.size();
        final int[] weight = new int[n];
        for (int rank = 0; rank < n; rank++) {
            weight[rank] = 1 + random.nextInt(10);
        }
        final RingPipeline<byte[]> first = ring.pipelines.get(start);
        int delivered = 0;
        for (int step = 0; step < 1_000_000; step++) {
            boolean allDone = true;
            for (final RingPipeline<byte[]> pipeline : ring.pipelines) {
                allDone &= pipeline.isDone();
            }
            if (allDone) {
                return;
            }
            if (fed && delivered < message.length && random.nextInt(4) == 0) {
                final int piece = Math.min(message.length - delivered, 1 + random.nextInt(50));
                System.arraycopy(message, delivered, firstBuffer, delivered, piece);
                delivered += piece;
                first.feed(delivered == message.length ? first.chunkCount() : delivered / first.chunkBytes());
            }
            final int rank = random.nextInt(n);
            if (random.nextInt(10) < weight[rank]) {
                ring.pipelines.get(rank).progress();
            }
        }
        throw new AssertionError(what + ": not done after a million steps: " + ring.pipelines);
    }

    @Test
    void middleRankForwardsInOrderWhetherOrNotItsRightNeighbourHasRoom() {
        final ArrayRing ring = new ArrayRing(3, 2, 4);
        final byte[] message = new byte[40];
        for (int i = 0; i < message.length; i++) {
            message[i] = (byte) (i + 1);
        }
        final byte[] middle = new byte[40];
        final byte[] last = new byte[40];
        final RingPipeline<byte[]> p0 = ring.pipelines.get(0).reset(RingRole.FIRST, message, 40, 4);
        final RingPipeline<byte[]> p1 = ring.pipelines.get(1).reset(RingRole.MIDDLE, middle, 40, 4);
        final RingPipeline<byte[]> p2 = ring.pipelines.get(2).reset(RingRole.LAST, last, 40, 4);
        assertEquals(2, p0.progress());
        // Two chunks arrive, both cut through to the right (2 forwards + 2 copies out), then two more fit
        // into the freed slots and are buffered: the right neighbour is full.
        p1.progress();
        assertEquals(2, p1.chunksSent());
        p0.progress();
        p1.progress();
        assertEquals(4, p1.chunksReceived());
        assertEquals(2, p1.chunksSent());
        assertEquals(2, p2.progress());
        // The backlog goes out of the middle rank's own buffer first, in order.
        p1.progress();
        assertEquals(4, p1.chunksSent());
        while (!(p0.isDone() && p1.isDone() && p2.isDone())) {
            p0.progress();
            p1.progress();
            p2.progress();
        }
        assertArrayEquals(message, middle);
        assertArrayEquals(message, last);
    }

    @Test
    void aLinkThatDoesNotKnowItsNeighbourIsRefusedBeforeAnyMessageCouldNameNodeRankMinusOne() {
        final ArrayLink right = new ArrayLink(1, 2, 2, 4);
        final ArrayLink unnamedLeft = new ArrayLink(-1, 1, 2, 4);
        final IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> new RingPipeline<>(right.new Sender(), unnamedLeft.new Receiver()));
        assertTrue(e.getMessage().contains("left -1"), e.getMessage());
        final ArrayLink left = new ArrayLink(0, 1, 2, 4);
        assertEquals(1, new RingPipeline<>(right.new Sender(), left.new Receiver()).localRank());
    }

    @Test
    void zeroBytesIsDoneAtOnceAndMovesNoCounter() {
        final ArrayRing ring = new ArrayRing(2, 2, 8);
        final RingPipeline<byte[]> first = ring.pipelines.get(0).reset(RingRole.FIRST, new byte[0], 0, 8);
        final RingPipeline<byte[]> last = ring.pipelines.get(1).reset(RingRole.LAST, null, 0, 8);
        assertTrue(first.isDone());
        assertTrue(last.isDone());
        assertEquals(0, first.progress());
        assertEquals(0, ring.links[0].sender.posted());
    }

    @Test
    void argumentsAreCheckedBeforeAnythingMoves() {
        final ArrayRing ring = new ArrayRing(2, 2, 8);
        final RingPipeline<byte[]> p = ring.pipelines.get(0);
        final byte[] buffer = new byte[16];
        assertThrows(IllegalArgumentException.class, () -> p.reset(RingRole.FIRST, buffer, -1, 8));
        assertThrows(IllegalArgumentException.class, () -> p.reset(RingRole.FIRST, buffer, 16, 0));
        assertThrows(IllegalArgumentException.class, () -> p.reset(RingRole.FIRST, null, 16, 8));
        assertThrows(IllegalArgumentException.class, () -> new RingPipeline<>(ring.links[0].sender, null));
        assertThrows(
                IllegalArgumentException.class, () -> new RingPipeline<>(ring.links[0].sender, ring.links[0].receiver));

        assertThrows(IllegalArgumentException.class, () -> p.reset(RingRole.FIRST, buffer, 16, p.maxChunkBytes() + 1));
        p.reset(RingRole.LAST, buffer, 16, 8);
        assertThrows(IllegalStateException.class, () -> p.feed(1));
        final RingPipeline<byte[]> r = new ArrayRing(2, 2, 8).pipelines.get(0);
        r.reset(RingRole.FIRST, buffer, 0, 8);
        assertThrows(IllegalStateException.class, () -> r.feed(0), "a first rank not started fed has every chunk");
        final RingPipeline<byte[]> q = ring.pipelines.get(1);
        q.resetFed(buffer, 16, 8);
        q.feed(1);
        assertThrows(IllegalArgumentException.class, () -> q.feed(0));
        assertThrows(IllegalArgumentException.class, () -> q.feed(3));
        assertEquals(1, q.chunksReady());
        q.feed(2);
        assertEquals(2, q.chunksAvailable());
    }

    @Test
    void rolesFormOneChainFromEveryStart() {
        for (int n = 1; n <= 9; n++) {
            for (int start = 0; start < n; start++) {
                int rank = start;
                for (int hop = 0; hop < n; hop++) {
                    final RingRole role = RingRole.of(n, rank, start);
                    final RingRole expected = n == 1
                            ? RingRole.ALONE
                            : hop == 0 ? RingRole.FIRST : hop == n - 1 ? RingRole.LAST : RingRole.MIDDLE;
                    assertEquals(expected, role, "n " + n + " start " + start + " rank " + rank);
                    rank = (rank + 1) % n;
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> RingRole.of(0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> RingRole.of(3, 3, 0));
        assertThrows(IllegalArgumentException.class, () -> RingRole.of(3, 0, -1));
    }
}
