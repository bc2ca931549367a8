package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.RingPipeline;
import org.hbcast.engine.RingRole;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One shared-memory link at a time: its layout, its flow control, and connecting a ring of them. */
class ShmLinkTest {
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
    void layoutKeepsSharedWordsOnSeparateLinesAndSlotsOnAPage() {
        final int[] lines = {
            SegmentHeader.MAGIC_OFFSET,
            LinkLayout.TAIL_OFFSET,
            LinkLayout.HEAD_OFFSET,
            LinkLayout.ABORT_OFFSET,
            LinkLayout.SLOT_LENGTHS_OFFSET
        };
        for (int i = 1; i < lines.length; i++) {
            assertEquals(128, lines[i] - lines[i - 1]);
        }
        assertTrue(
                LinkLayout.SLOT_LENGTHS_OFFSET + LinkLayout.MAX_SLOT_COUNT * Integer.BYTES <= LinkLayout.SLOTS_OFFSET);
        assertEquals(0, LinkLayout.SLOTS_OFFSET % 4096);
        assertEquals(64, LinkLayout.slotBytesFor(1));
        assertEquals(64, LinkLayout.slotBytesFor(64));
        assertEquals(128, LinkLayout.slotBytesFor(65));
        assertEquals(4096 + 8 * 1024 * 1024, LinkLayout.segmentBytes(8, 1024 * 1024));
        assertEquals(4096 + 3 * 128, LinkLayout.slotOffset(7, 4, 128));
        assertEquals(512 + 3 * 4, LinkLayout.lengthOffset(7, 4));
        assertThrows(IllegalArgumentException.class, () -> LinkLayout.segmentBytes(0, 64));
        assertThrows(IllegalArgumentException.class, () -> LinkLayout.segmentBytes(257, 64));
        assertThrows(IllegalArgumentException.class, () -> LinkLayout.segmentBytes(8, 100));
        assertThrows(IllegalArgumentException.class, () -> LinkLayout.segmentBytes(256, 1 << 30));
        assertThrows(IllegalArgumentException.class, () -> LinkLayout.slotBytesFor(0));
    }

    @Test
    void senderNeverOverwritesASlotTheReceiverHasNotReleased() throws IOException {
        final int slots = 3;
        try (ShmInbox inbox = ShmInbox.create(dir.path(), 1, slots, 100);
                ShmOutbox outbox = ShmOutbox.open(inbox.path(), 0, 1)) {
            final UnsafeBuffer source = new UnsafeBuffer(new byte[10 * 128]);
            for (int i = 0; i < source.capacity(); i++) {
                source.putByte(i, (byte) (i / 128 + 1));
            }
            assertEquals(128, outbox.maxChunkBytes());
            assertFalse(inbox.hasChunk());
            for (int k = 0; k < slots; k++) {
                assertTrue(outbox.hasCredit());
                assertTrue(outbox.trySend(source, k * 128L, 128 - k));
            }
            assertFalse(outbox.hasCredit());
            assertFalse(outbox.trySend(source, 3 * 128L, 128));
            assertEquals(3, outbox.posted());

            final UnsafeBuffer dest = new UnsafeBuffer(new byte[128]);
            assertTrue(inbox.hasChunk());
            assertEquals(128, inbox.chunkLength());
            assertTrue(inbox.hasChunk());
            inbox.copyChunk(dest, 0, 128);
            inbox.release();
            assertChunk(dest, 128, 1);
            assertEquals(1, inbox.consumed());

            // The freed slot is slot 0; slots 1 and 2 still hold chunks 2 and 3 untouched.
            assertTrue(outbox.trySend(source, 3 * 128L, 128));
            assertFalse(outbox.trySend(source, 4 * 128L, 128));
            for (int k = 1; k <= 3; k++) {
                assertTrue(inbox.hasChunk());
                final int length = inbox.chunkLength();
                assertEquals(k == 3 ? 128 : 128 - k, length);
                assertSame(inbox.segment().buffer(), inbox.chunkMemory());
                assertEquals(LinkLayout.SLOTS_OFFSET + (k % slots) * 128, inbox.chunkOffset());
                inbox.copyChunk(dest, 0, length);
                inbox.release();
                assertChunk(dest, length, k + 1);
            }
            assertFalse(inbox.hasChunk());
            assertEquals(4, inbox.consumed());
        }
        assertEquals(List.of(), dir.entries());
    }

    private static void assertChunk(final UnsafeBuffer dest, final int length, final int value) {
        final byte[] actual = new byte[length];
        dest.getBytes(0, actual);
        final byte[] expected = new byte[length];
        Arrays.fill(expected, (byte) value);
        assertArrayEquals(expected, actual);
    }

    @Test
    void chunkLengthsOutsideTheSlotAreRefused() throws IOException {
        try (ShmInbox inbox = ShmInbox.create(dir.path(), 1, 2, 64);
                ShmOutbox outbox = ShmOutbox.open(inbox.path(), 0, 1)) {
            final UnsafeBuffer source = new UnsafeBuffer(new byte[1000]);
            assertThrows(IllegalArgumentException.class, () -> outbox.trySend(source, 0, 0));
            assertThrows(IllegalArgumentException.class, () -> outbox.trySend(source, 0, 65));
            assertEquals(0, outbox.posted());
        }
    }

    @Test
    void outboxRefusesWhatIsNotTheRightNeighboursInbox() throws IOException {
        try (ShmInbox inbox = ShmInbox.create(dir.path(), 3, 2, 64);
                SharedSegment other = SharedSegment.create(dir.path(), 8192)) {
            final IOException wrongOwner = assertThrows(IOException.class, () -> ShmOutbox.open(inbox.path(), 1, 2));
            assertTrue(
                    wrongOwner
                            .getMessage()
                            .endsWith("belongs to node rank 3, but the right neighbour of node "
                                    + "rank 1 is node rank 2"),
                    wrongOwner.getMessage());
            final IOException notInbox = assertThrows(IOException.class, () -> ShmOutbox.open(other.path(), 1, 2));
            assertTrue(notInbox.getMessage().endsWith("is not a ring inbox (no magic word)"), notInbox.getMessage());
            other.buffer().putInt(SegmentHeader.VERSION_OFFSET, 99);
            other.buffer().putLong(SegmentHeader.MAGIC_OFFSET, LinkLayout.KIND.magic());
            final IOException version = assertThrows(IOException.class, () -> ShmOutbox.open(other.path(), 1, 2));
            assertTrue(version.getMessage().contains("layout version 99"), version.getMessage());
        }
    }

    @Test
    void connectingLinksEachRankToItsRightNeighbourAndUnlinkingLeavesNothing() throws IOException {
        final int n = 3;
        try (ShmTestNode node = ShmTestNode.create(dir.path(), n, 4, 256)) {
            assertEquals(List.of(), dir.entries(), "every inbox is unlinked once the ring is connected");
            for (int rank = 0; rank < n; rank++) {
                final ShmRingLinks links = node.links(rank);
                assertEquals((rank + 1) % n, links.outbox().peerRank());
                assertEquals((rank + n - 1) % n, links.inbox().peerRank());
                assertEquals(rank, links.outbox().localRank());
                assertEquals(rank, links.inbox().localRank());
                assertEquals(links.rightRank(), links.outbox().peerRank());
                assertEquals(links.leftRank(), links.inbox().peerRank());
                assertEquals(RingRole.FIRST, links.role(rank));
                assertEquals(RingRole.LAST, links.role((rank + 1) % n));
                assertEquals(RingRole.MIDDLE, links.role((rank + 2) % n));
            }
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void ringOfOneHasNoLinksAndNothingToDo() throws IOException {
        try (ShmTestNode node = ShmTestNode.create(dir.path(), 1, 8, 4096)) {
            final ShmRingLinks links = node.links(0);
            assertNull(links.outbox());
            assertEquals(RingRole.ALONE, links.role(0));
            final RingPipeline<MutableDirectBuffer> ring = links.newPipeline();
            ring.reset(RingRole.ALONE, new UnsafeBuffer(new byte[100]), 100, 64);
            assertTrue(ring.isDone());
            assertEquals(0, ring.progress());
            assertThrows(
                    IllegalArgumentException.class,
                    () -> ring.reset(RingRole.FIRST, new UnsafeBuffer(new byte[100]), 100, 64));
        }
    }

    @Test
    void connectRefusesPathsOutOfOrderAndMismatchedSlotSizes() throws IOException {
        try (ShmInbox zero = ShmInbox.create(dir.path(), 0, 2, 4096);
                ShmInbox one = ShmInbox.create(dir.path(), 1, 2, 1024)) {
            final IllegalArgumentException order = assertThrows(
                    IllegalArgumentException.class,
                    () -> ShmRingLinks.connect(zero, List.of(one.path(), zero.path()), 0));
            assertTrue(order.getMessage().contains("out of node-rank order"), order.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ShmRingLinks.connect(zero, List.of(zero.path()), 1));
            final IOException slots = assertThrows(
                    IOException.class,
                    () -> ShmRingLinks.connect(
                            zero,
                            new String[] {zero.path().toString(), one.path().toString()},
                            0));
            assertEquals(
                    "node rank 1's inbox has 1024-byte slots, node rank 0's has 4096: every rank of a node "
                            + "must use the same slot size",
                    slots.getMessage());
            assertTrue(Files.exists(zero.path()), "a failed connect leaves the caller's inbox alone");
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void inboxFilesAreOwnerOnly() throws IOException {
        try (ShmInbox inbox = ShmInbox.create(dir.path(), 0, 2, 64)) {
            final Path path = inbox.path();
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(path)));
            assertTrue(path.getFileName().toString().startsWith(SharedSegment.NAME_PREFIX));
        }
    }
}
