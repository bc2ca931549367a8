package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

class SegmentHeaderTest {
    private static final Path PATH = Path.of("/dev/shm/hbcast-test");
    private static final SegmentHeader.Size SLOTS_AFTER_A_PAGE = g -> 4096L + (long) g.slotCount() * g.slotBytes();

    @Test
    void fieldsFollowOneAnotherInsideTheFirstLine() {
        assertEquals(0, SegmentHeader.MAGIC_OFFSET);
        assertEquals(8, SegmentHeader.VERSION_OFFSET);
        assertEquals(12, SegmentHeader.SLOT_COUNT_OFFSET);
        assertEquals(16, SegmentHeader.SLOT_BYTES_OFFSET);
        assertEquals(20, SegmentHeader.PARTY_OFFSET);
        assertTrue(SegmentHeader.PARTY_OFFSET + Integer.BYTES <= SegmentHeader.LENGTH);
        // Every layout's first counter starts after the header, on a line of its own.
        assertEquals(SegmentHeader.LENGTH, LinkLayout.TAIL_OFFSET);
        assertEquals(SegmentHeader.LENGTH, FanoutLayout.TAIL_OFFSET);
        assertEquals(SegmentHeader.LENGTH, CallBoard.CLAIMED_OFFSET);
    }

    @Test
    void eachKindsMagicSpellsItsNameAndNoTwoAgree() {
        final Set<Long> magics = new HashSet<>();
        for (final SegmentHeader.Kind kind : SegmentHeader.Kind.values()) {
            final byte[] name = new byte[8];
            ByteBuffer.wrap(name).order(ByteOrder.LITTLE_ENDIAN).putLong(kind.magic());
            assertTrue(new String(name, StandardCharsets.US_ASCII).startsWith("HBC"), kind.name());
            assertTrue(magics.add(kind.magic()), kind + " shares its magic word");
            assertTrue(kind.version() > 0, kind.name());
        }
    }

    @Test
    void aWrittenHeaderChecksAndReturnsItsGeometry() throws IOException {
        final UnsafeBuffer buffer = segment(8, 64);
        SegmentHeader.write(buffer, SegmentHeader.Kind.FANOUT, 8, 64, 5);
        final SegmentHeader.Geometry g = SegmentHeader.check(
                buffer, PATH, SegmentHeader.Kind.FANOUT, 5, found -> "serves " + found, SLOTS_AFTER_A_PAGE);
        assertEquals(new SegmentHeader.Geometry(8, 64, 5), g);
    }

    @Test
    void eachMismatchIsNamed() {
        final UnsafeBuffer buffer = segment(8, 64);
        SegmentHeader.write(buffer, SegmentHeader.Kind.FANOUT, 8, 64, 5);
        assertEquals(
                PATH + " is not a call board (no magic word)",
                refusal(buffer, SegmentHeader.Kind.CALL_BOARD, 5, SLOTS_AFTER_A_PAGE));
        assertEquals(
                "fan-out segment " + PATH + " serves 5",
                refusal(buffer, SegmentHeader.Kind.FANOUT, 4, SLOTS_AFTER_A_PAGE));
        assertEquals(
                "fan-out segment " + PATH + " has " + buffer.capacity() + " bytes, its header says "
                        + (buffer.capacity() + 64),
                refusal(buffer, SegmentHeader.Kind.FANOUT, 5, g -> SLOTS_AFTER_A_PAGE.bytes(g) + 64));
        assertEquals(
                "fan-out segment " + PATH + " has a bad geometry: too many slots",
                refusal(buffer, SegmentHeader.Kind.FANOUT, 5, g -> {
                    throw new IllegalArgumentException("too many slots");
                }));
        buffer.putInt(SegmentHeader.VERSION_OFFSET, 99);
        assertEquals(
                "fan-out segment " + PATH + " has layout version 99, this library speaks "
                        + SegmentHeader.Kind.FANOUT.version() + " (mixed hbcast versions on one node?)",
                refusal(buffer, SegmentHeader.Kind.FANOUT, 5, SLOTS_AFTER_A_PAGE));
    }

    @Test
    void aSegmentShorterThanTheHeaderOrNotYetPublishedIsRefused() {
        final UnsafeBuffer tiny = new UnsafeBuffer(new byte[64]);
        assertTrue(refusal(tiny, SegmentHeader.Kind.RING_INBOX, 0, SLOTS_AFTER_A_PAGE)
                .endsWith("is not a ring inbox (no magic word)"));
        // Fields in place but the magic word not yet written: the creator has not published it.
        final UnsafeBuffer unpublished = segment(1, 64);
        unpublished.putInt(SegmentHeader.VERSION_OFFSET, SegmentHeader.Kind.RING_INBOX.version());
        assertTrue(refusal(unpublished, SegmentHeader.Kind.RING_INBOX, 0, SLOTS_AFTER_A_PAGE)
                .endsWith("(no magic word)"));
    }

    private static UnsafeBuffer segment(final int slots, final int slotBytes) {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(4096 + slots * slotBytes));
    }

    private static String refusal(
            final UnsafeBuffer buffer, final SegmentHeader.Kind kind, final int party, final SegmentHeader.Size size) {
        return assertThrows(
                        IOException.class,
                        () -> SegmentHeader.check(buffer, PATH, kind, party, found -> "serves " + found, size))
                .getMessage();
    }
}
