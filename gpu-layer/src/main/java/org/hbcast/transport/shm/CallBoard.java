package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A node's board of call headers: before a broadcast moves any data, its root posts what it sends
 * (its rank, byte count and element size) under the call's number, and every other rank of the node
 * reads it there. A message of at most {@link #INLINE_BYTES} rides with the header, in the board's
 * payload ring: the broadcast is then the header. On a node without the root, the node's leader posts
 * the header it received from the network on the root's behalf. So every rank runs the root's call,
 * whatever count it passed itself, and no rank waits for a receiver: the root posts and goes on, as a
 * broadcast's root does.
 *
 * <p>Any rank may claim a call's header, by compare-and-set of {@code CLAIMED} from the call before:
 * the first claim wins, so two ranks that each believe they are the root cannot both post, and a
 * rank with an argument it must refuse can post a refusal that every other rank reads at once.
 *
 * <pre>
 * offset                 size  field          written by
 * 0                      128   header         creator ({@link SegmentHeader}: kind CALL_BOARD, no slots,
 *                                             party = n, the node's rank count), after faulting in every page
 * 128                    8     CLAIMED        any rank, by CAS from q - 1 to q: call q's header is taken
 * 256 + 64 e             64    ENTRY[e]       the claimer of call q, e = q mod ENTRIES:
 *   +0                   8       SEQUENCE       q, written last (ordered): the entry is complete
 *   +8                   8       BYTES          the root's bytes, or {@link #REFUSED}
 *   +16                  4       RANK           the root (posted by itself or by the node's leader), or the rank that refused
 *   +20                  4       ELEMENT_BYTES  the root's element size
 *   +24                  4       INLINE         1 when the root's bytes are in the payload ring
 *   +32                  8       START          where call q's payload starts in the ring (a position, see below)
 *   +40                  8       END            where it ends: call q + 1's payload starts at or after it
 * ringOffset             8 MiB PAYLOAD_RING   the claimer of call q: its payload, at START mod RING_BYTES
 * readsOffset + 128 p    8     READ[p]        node rank p: the newest call whose header it has read
 *   +8                   8     WAITING_CALL   node rank p: the call whose header it waits for (root written first)
 *   +16                  8     WAITING_ROOT   node rank p: the root it passed for that call
 * </pre>
 *
 * A rank that waits for the header of a call from a root that itself waits for that call's header
 * knows nobody will post it (the ranks disagree on the root) and claims the call with {@link #NO_ROOT}.
 *
 * <p>Payload positions only grow: call q's starts where call q - 1's ends (every rank takes part in
 * every call, so q's claimer has read q - 1's header), rounded up to 64 bytes, and skips to the
 * ring's next lap rather than wrap. So small payloads let a root run {@link #ENTRIES} calls ahead,
 * large ones as many as fit in the ring, and the board's memory stays fixed.
 *
 * A claimer may post call q only once every rank has read call q - ENTRIES and every call whose
 * payload the new one would overwrite ({@link #hasRoom}), so an entry is never overwritten before all
 * have read it. Calls are numbered from 1 over the life of the board; every rank takes part in every
 * call, so the numbers agree.
 */
public final class CallBoard implements AutoCloseable {
    /** The segment's header: kind and version, no slots, and as its party the node's rank count. */
    public static final SegmentHeader.Kind KIND = SegmentHeader.Kind.CALL_BOARD;
    /** Headers kept: how far the fastest root may run ahead of the slowest reader. */
    public static final int ENTRIES = 64;
    /**
     * Bytes: the most of a message that rides with its header on the board (a layout may let less
     * ride). On one host that is the whole broadcast, one copy in and one out per rank, the least any
     * shared-memory broadcast copies, and the root runs ahead of its readers by whole calls
     * (docs/tuning.md).
     */
    public static final int INLINE_BYTES = 4 << 20;
    /**
     * Bytes of the payload ring (8 MiB): two calls ahead at the largest payloads, four at 2 MiB, eight
     * at 1 MiB, 64 ({@link #ENTRIES}) at small ones.
     */
    public static final int RING_BYTES = 2 * INLINE_BYTES;
    /** {@code BYTES} of a refused call: the claimer refused its own arguments. */
    public static final long REFUSED = -1;
    /** {@code BYTES} of a call no rank would root: {@code RANK} is the rank that saw it, {@code ELEMENT_BYTES} the root it passed. */
    public static final long NO_ROOT = -2;

    private static final int LINE = 128;
    static final int CLAIMED_OFFSET = SegmentHeader.LENGTH;
    static final int ENTRIES_OFFSET = CLAIMED_OFFSET + LINE;
    static final int ENTRY_BYTES = 64;
    static final int SEQUENCE = 0;
    static final int BYTES = 8;
    static final int RANK = 16;
    static final int ELEMENT_BYTES = 20;
    static final int INLINE = 24;
    static final int START = 32;
    static final int END = 40;
    static final int RING_OFFSET = ENTRIES_OFFSET + ENTRIES * ENTRY_BYTES;
    private static final int PAYLOAD_ALIGNMENT = 64;
    static final int READS_OFFSET = RING_OFFSET + RING_BYTES;
    static final int READ_STRIDE = LINE;
    static final int WAITING_CALL = 8;
    static final int WAITING_ROOT = 16;

    private final SharedSegment segment;
    private final UnsafeBuffer shm;
    private final int position;
    private final int participants;
    /** No reader was behind this call when last looked: calls up to it + ENTRIES need no look. */
    private long oldestRead;

    private CallBoard(final SharedSegment segment, final int position) {
        this.segment = segment;
        this.shm = segment.buffer();
        this.position = position;
        this.participants = shm.getInt(SegmentHeader.PARTY_OFFSET);
    }

    static int segmentBytes(final int participants) {
        return READS_OFFSET + participants * READ_STRIDE;
    }

    /**
     * Creates the board of a node of {@code participants} ranks, as node rank {@code position}. Its
     * pages are not yet in this process's page table: {@link #loadPages} puts them there once the
     * other ranks may map it.
     */
    public static CallBoard create(final Path directory, final int position, final int participants)
            throws IOException {
        checkPosition(position, participants);
        final SharedSegment segment = SharedSegment.create(directory, segmentBytes(participants));
        SegmentHeader.write(segment.buffer(), KIND, 0, 0, participants);
        return new CallBoard(segment, position);
    }

    /**
     * Faults in every page of the creator's mapping, as {@link #open} does for the others' (the
     * creator allocated them, the others map them): a program's first calls then pay no page faults,
     * and the board's memory is all there from the start, so it never shows as growth while the
     * program runs.
     */
    public CallBoard loadPages() {
        segment.loadPages();
        return this;
    }

    /** Maps the board another rank of the node created, after checking that it is one for this node. */
    public static CallBoard open(final Path path, final int position, final int participants) throws IOException {
        checkPosition(position, participants);
        final SharedSegment segment = SharedSegment.open(path, segmentBytes(participants));
        final UnsafeBuffer shm = segment.buffer();
        try {
            SegmentHeader.check(
                    shm,
                    path,
                    KIND,
                    participants,
                    found -> "serves " + found + " ranks, expected " + participants,
                    found -> segmentBytes(found.party()));
        } catch (final IOException ex) {
            segment.close();
            throw ex;
        }
        segment.loadPages();
        return new CallBoard(segment, position);
    }

    private static void checkPosition(final int position, final int participants) {
        if (participants < 1 || position < 0 || position >= participants) {
            throw new IllegalArgumentException("node rank " + position + " is not in a node of " + participants);
        }
    }

    /**
     * True when every rank has read call {@code call - ENTRIES} and every call whose payload a
     * payload of {@code payloadBytes} (at most {@link #INLINE_BYTES}) would overwrite, so call
     * {@code call} may be posted with it. Only its claimer may ask: it has read call {@code call - 1}.
     */
    public boolean hasRoom(final long call, final long payloadBytes) {
        if (fits(call, payloadBytes)) {
            return true;
        }
        oldestRead = oldestRead();
        return fits(call, payloadBytes);
    }

    private boolean fits(final long call, final long payloadBytes) {
        if (call - oldestRead > ENTRIES) {
            return false;
        }
        final long oldestLive = oldestRead + 1;
        if (payloadBytes == 0 || oldestLive >= call) {
            return true;
        }
        // Calls oldestLive .. call - 1 may still be read: their entries are intact (fewer than ENTRIES back).
        final long liveStart = shm.getLong(entryOffset(oldestLive) + START);
        return start(call, payloadBytes) + payloadBytes - liveStart <= RING_BYTES;
    }

    /**
     * Where call {@code call}'s payload of {@code payloadBytes} starts: after call {@code call - 1}'s,
     * on a cache line, on the ring's next lap where it would wrap. (The entry of call 0 is the zeroed
     * entry 0.)
     */
    private long start(final long call, final long payloadBytes) {
        final long previousEnd = shm.getLong(entryOffset(call - 1) + END);
        long start = (previousEnd + PAYLOAD_ALIGNMENT - 1) & -PAYLOAD_ALIGNMENT;
        final long inLap = start % RING_BYTES;
        if (payloadBytes > 0 && inLap + payloadBytes > RING_BYTES) {
            start += RING_BYTES - inLap;
        }
        return start;
    }

    private long oldestRead() {
        long oldest = Long.MAX_VALUE;
        for (int p = 0; p < participants; p++) {
            oldest = Math.min(oldest, p == position ? Long.MAX_VALUE : read(p));
        }
        return oldest == Long.MAX_VALUE ? Long.MAX_VALUE / 2 : oldest;
    }

    /** The node rank that has read the fewest calls: whom a claimer waits for when there is no room. */
    public int slowestReader() {
        int slowest = position;
        long fewest = Long.MAX_VALUE;
        for (int p = 0; p < participants; p++) {
            if (p != position && read(p) < fewest) {
                fewest = read(p);
                slowest = p;
            }
        }
        return slowest;
    }

    private long read(final int p) {
        return shm.getLongVolatile(READS_OFFSET + p * READ_STRIDE);
    }

    /** Takes call {@code call}'s header if nobody has: true for the first claimer only. */
    public boolean claim(final long call) {
        return shm.compareAndSetLong(CLAIMED_OFFSET, call - 1, call);
    }

    /** The claimer writes the header of call {@code call}; readers see it complete or not at all. */
    public void post(final long call, final long bytes, final int rank, final int elementBytes) {
        post(call, bytes, rank, elementBytes, false);
    }

    /**
     * As {@link #post(long, long, int, int)}, saying whether the root's bytes are in the entry's
     * payload (written there before, see {@link #payloadAddress}).
     */
    public void post(final long call, final long bytes, final int rank, final int elementBytes, final boolean inline) {
        final int entry = entryOffset(call);
        final long payloadBytes = inline ? bytes : 0;
        final long start = start(call, payloadBytes);
        shm.putLong(entry + START, start);
        shm.putLong(entry + END, start + payloadBytes);
        shm.putLong(entry + BYTES, bytes);
        shm.putInt(entry + RANK, rank);
        shm.putInt(entry + ELEMENT_BYTES, elementBytes);
        shm.putInt(entry + INLINE, inline ? 1 : 0);
        shm.putLongOrdered(entry + SEQUENCE, call);
    }

    /** True once call {@code call}'s header is posted (reads after this see its fields). */
    public boolean isPosted(final long call) {
        return shm.getLongVolatile(entryOffset(call) + SEQUENCE) == call;
    }

    public long bytes(final long call) {
        return shm.getLong(entryOffset(call) + BYTES);
    }

    public int rank(final long call) {
        return shm.getInt(entryOffset(call) + RANK);
    }

    public int elementBytes(final long call) {
        return shm.getInt(entryOffset(call) + ELEMENT_BYTES);
    }

    /** True when call {@code call}'s payload holds the root's bytes. */
    public boolean isInline(final long call) {
        return shm.getInt(entryOffset(call) + INLINE) != 0;
    }

    /** Address of the payload of call {@code call}, once posted: readers copy the root's bytes from it. */
    public long payloadAddress(final long call) {
        return ringAddress(shm.getLong(entryOffset(call) + START));
    }

    /**
     * Address where call {@code call}'s claimer writes its payload of {@code payloadBytes}, before
     * {@link #post} with {@code inline} (after {@link #hasRoom(long, long)} said it fits).
     */
    public long payloadAddressToWrite(final long call, final long payloadBytes) {
        return ringAddress(start(call, payloadBytes));
    }

    private long ringAddress(final long position) {
        return shm.addressOffset() + RING_OFFSET + position % RING_BYTES;
    }

    /** This rank is done with call {@code call}'s header: its entry may be reused. */
    public void markRead(final long call) {
        shm.putLongOrdered(READS_OFFSET + position * READ_STRIDE, call);
    }

    /** This rank waits for the header of {@code call}, having passed {@code root}. */
    public void markWaiting(final long call, final int root) {
        final int line = READS_OFFSET + position * READ_STRIDE;
        shm.putLong(line + WAITING_ROOT, root);
        shm.putLongOrdered(line + WAITING_CALL, call);
    }

    /**
     * True when node rank {@code p} waits for the header of {@code call} as a receiver: it passed a
     * root other than itself, so it will not post that header.
     */
    public boolean waitsForAnother(final int p, final long call) {
        final int line = READS_OFFSET + p * READ_STRIDE;
        return shm.getLongVolatile(line + WAITING_CALL) == call && shm.getLong(line + WAITING_ROOT) != p;
    }

    private static int entryOffset(final long call) {
        return ENTRIES_OFFSET + (int) (call % ENTRIES) * ENTRY_BYTES;
    }

    public Path path() {
        return segment.path();
    }

    /** Removes the file once every rank has mapped it; the mappings stay valid. */
    public void unlink() throws IOException {
        segment.unlink();
    }

    @Override
    public void close() throws IOException {
        segment.close();
    }
}
