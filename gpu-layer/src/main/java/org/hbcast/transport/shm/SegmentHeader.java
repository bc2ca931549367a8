package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.IntFunction;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The first line of every shared-memory segment hbcast makes (ring inbox, fan-out, call board): which
 * kind it is, its layout's version, its geometry and whom it serves. The creator writes it with
 * {@link #write}, the ranks that map the segment check it with {@link #check}, so no rank trusts its
 * own configuration about a segment another process made, and ranks of two hbcast versions on one
 * node refuse each other instead of misreading each other's counters.
 *
 * <pre>
 * offset  size  field       written by the creator
 * 0       8     MAGIC       the kind's, last (ordered): the fields below are in place once it reads right
 * 8       4     VERSION     the kind's layout version
 * 12      4     SLOT_COUNT  S, or 0 for a segment without chunk slots (the call board)
 * 16      4     SLOT_BYTES  bytes of a slot, a multiple of 64, or 0
 * 20      4     PARTY       the kind's: the owner's node rank (ring inbox) or the ranks served
 * 24      104   reserved    zero; the header takes a 128-byte line of its own
 * </pre>
 */
public final class SegmentHeader {
    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = MAGIC_OFFSET + Long.BYTES;
    public static final int SLOT_COUNT_OFFSET = VERSION_OFFSET + Integer.BYTES;
    public static final int SLOT_BYTES_OFFSET = SLOT_COUNT_OFFSET + Integer.BYTES;
    public static final int PARTY_OFFSET = SLOT_BYTES_OFFSET + Integer.BYTES;
    /** Bytes the header occupies: the fields that follow it start on their own 128-byte line. */
    public static final int LENGTH = 128;

    /** What the segment is: its magic word, its layout version and what its {@code PARTY} field means. */
    public enum Kind {
        /** A ring link's inbox ({@link LinkLayout}); PARTY is the receiver's node rank. */
        RING_INBOX("ring inbox", 0x31474E4952434248L /* "HBCRING1" */, 1),
        /** A node's fan-out ({@link FanoutLayout}); PARTY is the node's rank count. */
        FANOUT("fan-out segment", 0x31304E4146434248L /* "HBCFAN01" */, 1),
        /** A node's call board ({@link CallBoard}); PARTY is the node's rank count. */
        CALL_BOARD("call board", 0x314C4C4143434248L /* "HBCCALL1" */, 4);

        private final String title;
        private final long magic;
        private final int version;

        Kind(final String title, final long magic, final int version) {
            this.title = title;
            this.magic = magic;
            this.version = version;
        }

        /** How messages name a segment of this kind. */
        public String title() {
            return title;
        }

        /** The magic word, an ASCII name read as a little-endian long. */
        public long magic() {
            return magic;
        }

        /** The layout version this library writes and accepts. */
        public int version() {
            return version;
        }
    }

    /** The geometry a checked header declares. */
    public record Geometry(int slotCount, int slotBytes, int party) {}

    /** Computes the bytes a segment of a kind must have for the geometry its header declares. */
    @FunctionalInterface
    public interface Size {
        /** @throws IllegalArgumentException if the geometry is not one this kind allows */
        long bytes(Geometry geometry);
    }

    private SegmentHeader() {}

    /** Writes the header of a new segment; the magic word last, so a reader that sees it sees the rest. */
    public static void write(
            final UnsafeBuffer buffer, final Kind kind, final int slotCount, final int slotBytes, final int party) {
        buffer.putInt(VERSION_OFFSET, kind.version());
        buffer.putInt(SLOT_COUNT_OFFSET, slotCount);
        buffer.putInt(SLOT_BYTES_OFFSET, slotBytes);
        buffer.putInt(PARTY_OFFSET, party);
        buffer.putLongOrdered(MAGIC_OFFSET, kind.magic());
    }

    /**
     * Checks the header of a segment another process created: its kind and version, the party the
     * opener expects (the right neighbour's node rank, the node's rank count), and that the mapping
     * has the bytes its geometry needs.
     *
     * @param partyMismatch the message when PARTY is not {@code party}, given the value found
     * @throws IOException naming the segment and what is wrong
     */
    public static Geometry check(
            final UnsafeBuffer buffer,
            final Path path,
            final Kind kind,
            final int party,
            final IntFunction<String> partyMismatch,
            final Size size)
            throws IOException {
        if (buffer.capacity() < LENGTH || buffer.getLongVolatile(MAGIC_OFFSET) != kind.magic()) {
            throw new IOException(path + " is not a " + kind.title() + " (no magic word)");
        }
        final int version = buffer.getInt(VERSION_OFFSET);
        if (version != kind.version()) {
            throw new IOException(kind.title() + " " + path + " has layout version " + version
                    + ", this library speaks " + kind.version() + " (mixed hbcast versions on one node?)");
        }
        final int found = buffer.getInt(PARTY_OFFSET);
        if (found != party) {
            throw new IOException(kind.title() + " " + path + " " + partyMismatch.apply(found));
        }
        final Geometry geometry =
                new Geometry(buffer.getInt(SLOT_COUNT_OFFSET), buffer.getInt(SLOT_BYTES_OFFSET), found);
        final long expected;
        try {
            expected = size.bytes(geometry);
        } catch (final IllegalArgumentException ex) {
            throw new IOException(kind.title() + " " + path + " has a bad geometry: " + ex.getMessage(), ex);
        }
        if (buffer.capacity() != expected) {
            throw new IOException(
                    kind.title() + " " + path + " has " + buffer.capacity() + " bytes, its header says " + expected);
        }
        return geometry;
    }
}
