package org.hbcast.header;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.schedule.KnomialTree;

/**
 * Carries a call's header (and, for small messages, its data) down a k-nomial tree of node leaders,
 * one way: the root sends it, standing in for its host's leader, and goes on; each leader receives it from whichever parent
 * the header's own root makes, forwards it to its children and reads it. No rank waits for a
 * receiver, and a leader needs no agreement on the root to receive, since the header names it.
 * A header whose payload costs a link more than a start-up goes down a {@link PayloadTree} of the
 * leaders instead (a chain, or the binomial tree, counted from the root's): every leader derives its
 * children from the header's own payload and that agreed tree.
 *
 * <p>A header of call {@code q} travels under tag {@link #tag(long) tag(q)} and carries {@code q}
 * itself, so a header left over from an earlier call (a program whose ranks disagreed on the root)
 * is never taken for this one's: its number shows it.
 *
 * <pre>
 * offset  size  field          written by
 * 0       8     CALL           the root: the call's number q
 * 8       8     BYTES          the root: its byte count, or a negative code (a refusal)
 * 16      4     ROOT           the root's rank
 * 20      4     ELEMENT_BYTES  the root's element size
 * 24      4     FLAGS          the root: 1 when its bytes ride in PAYLOAD
 * 28      4     SENDER         each sender: its own rank (the root, or the leader forwarding)
 * 64      n     PAYLOAD        the root's bytes when FLAGS says so (n = BYTES)
 * 64+n    8     (rest stamp)   each sender: q again, when the payload has a rest
 * </pre>
 *
 * The first message holds the header and at most {@link #FIRST_PAYLOAD} bytes of payload; the rest
 * of a larger payload follows from the same sender under {@link #restTag(long) restTag(q)}, with
 * {@code q} after it. A receiver takes the rest only from the SENDER its first part names and checks
 * its {@code q}: the 13 bits of the tag alone would let the rest of another sender (two roots
 * claiming one call) or of a call 8,192 earlier complete this one's payload.
 *
 * <p>Every {@link #SYNCHRONOUS_EVERY}th header whose rest goes eagerly goes synchronously, so that a
 * root runs at most that many calls ahead of a leader: a longer queue of unexpected messages slows
 * every receive the leader posts.
 *
 * This class alone knows the layout: the root writes with {@link #writeHeader}, leaders read a
 * received header with {@link #call()}, {@link #bytes()} and the like.
 *
 * <p>Allocates what the binding allocates per immediate message (Open MPI's bindings: an
 * {@code mpi.Request} of 32 bytes), nothing else, each going into a request slot of this relay's: a
 * leader's receive each call, a sender's send to each child. Persistent requests, which the leaders' data
 * tree keeps, cannot serve here: a header travels under its call's own tag (of {@code TAG_MASK + 1})
 * so that one left over from another call is never matched as this one's, and a persistent request
 * is bound to one tag.
 */
public final class HeaderRelay {
    static final int CALL = 0;
    static final int BYTES = 8;
    static final int ROOT = 16;
    static final int ELEMENT_BYTES = 20;
    static final int FLAGS = 24;
    static final int SENDER = 28;
    /** Offset of the payload in {@link #inbox()} and {@link #outbox()}. */
    public static final int PAYLOAD = 64;
    /**
     * Payload bytes (32 KiB) that travel in the header's first message; the rest follows in a second.
     * Guarantees one message per edge up to Open MPI's TCP eager limit (64 KiB with headers), since a
     * leader can post the second receive only once the first has come. Evidence: docs/tuning.md.
     */
    public static final int FIRST_PAYLOAD = 32 << 10;
    /** Tags {@code TAG_BASE .. TAG_BASE + TAG_MASK}: below 32768, the least any MPI must allow. */
    static final int TAG_BASE = 0x6000;
    /** Tags of the payload's rest, {@code REST_TAG_BASE .. REST_TAG_BASE + TAG_MASK}, clear of hbcast's others. */
    static final int REST_TAG_BASE = 0x2000;

    static final int TAG_MASK = 0x1FFF;
    /**
     * Every this many headers whose rest goes eagerly (a payload of at most twice {@link
     * #FIRST_PAYLOAD}), the first message goes synchronously ({@code MPI_Issend}), so that a sender
     * runs at most that many calls ahead of a leader. Why: back to back, nothing else held the root,
     * its eager messages piled up in the leader's queue of unexpected messages, and each receive the
     * leader posted searched that queue: on the 2-host bed a leader's header took 440-660 µs a call
     * at 64 KiB in OSU's loop, 100-120 with this, where every call synchronous took 160. A larger rest
     * leaves by rendezvous, which holds the sender already (docs/tuning.md). A power of two.
     */
    static final int SYNCHRONOUS_EVERY = 8;
    /** What {@link #expect} writes over the inbox's call number: no header carries it (calls count from 1). */
    private static final long NO_CALL = Long.MIN_VALUE;

    private final MpiComm comm;
    private final int rank;
    private final int radix;
    private final PayloadTree payloadTree;
    private final ByteBuffer inbox;
    private final ByteBuffer outbox;
    private final int[] children;
    /** One slot per message a send may post; the first {@code sendCount} are in flight. */
    private final MpiRequest[] sends;

    private int sendCount;
    /** Headers with an eager rest this relay has sent or forwarded, for {@link #SYNCHRONOUS_EVERY}. */
    private long restHeaders;

    /** The most data bytes a header carries ({@link #payloadBytes()}). */
    private final int payloadBytes;

    private final ByteBuffer inboxRest;
    private final ByteBuffer outboxRest;
    /** The receives of a header's first part and of its payload's rest, each posted while its flag is set. */
    private final MpiRequest first;

    private final MpiRequest rest;
    private boolean firstPosted;
    private boolean restPosted;

    /**
     * @param radix the leaders' tree radix
     * @param leaders the most leaders a tree will have (the node count)
     * @param payloadBytes the most data bytes a header carries
     * @param payloadTree the tree that large payloads take instead, the same on every rank ({@link
     *        PayloadTree#of}; {@link PayloadTree#NONE} for none)
     */
    public HeaderRelay(MpiComm comm, int radix, int leaders, int payloadBytes, PayloadTree payloadTree)
            throws MpiFailure {
        this.comm = comm;
        this.radix = radix;
        this.payloadTree = payloadTree;
        this.rank = comm.rank();
        this.payloadBytes = payloadBytes;
        int capacity = PAYLOAD + Math.max(payloadBytes, FIRST_PAYLOAD + 1) + Long.BYTES;
        this.inbox = ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        this.outbox = ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        this.inboxRest = inbox.duplicate().position(PAYLOAD + FIRST_PAYLOAD).slice();
        this.outboxRest = outbox.duplicate().position(PAYLOAD + FIRST_PAYLOAD).slice();
        int most = Math.max(leaders, 1);
        this.children =
                new int[Math.max(1, Math.max(KnomialTree.maxChildren(most, radix), payloadTree.maxChildren(most)))];
        this.sends = new MpiRequest[2 * children.length];
        for (int i = 0; i < sends.length; i++) {
            sends[i] = comm.newRequest();
        }
        this.first = comm.newRequest();
        this.rest = comm.newRequest();
    }

    /** The most data bytes a header carries down this relay: what its constructor was given. */
    public int payloadBytes() {
        return payloadBytes;
    }

    static int tag(long call) {
        return TAG_BASE + (int) (call & TAG_MASK);
    }

    /** Bytes of the message that carries the rest of a payload of {@code payloadBytes}: the rest and its call's number. */
    static int restMessageBytes(int payloadBytes) {
        return payloadBytes - FIRST_PAYLOAD + Long.BYTES;
    }

    static int restTag(long call) {
        return REST_TAG_BASE + (int) (call & TAG_MASK);
    }

    /** Where a received header lies (valid once {@link #arrived()}); its payload is at {@link #PAYLOAD}. */
    public ByteBuffer inbox() {
        return inbox;
    }

    /** Where the root's header is written ({@link #writeHeader}); its payload goes at {@link #PAYLOAD}. */
    public ByteBuffer outbox() {
        return outbox;
    }

    /** The root writes its header into the outbox; {@code inline} says its bytes follow at {@link #PAYLOAD}. */
    public void writeHeader(long call, long bytes, int root, int elementBytes, boolean inline) {
        outbox.putLong(CALL, call)
                .putLong(BYTES, bytes)
                .putInt(ROOT, root)
                .putInt(ELEMENT_BYTES, elementBytes)
                .putInt(FLAGS, inline ? 1 : 0);
    }

    /** The received header's call number. */
    public long call() {
        return inbox.getLong(CALL);
    }

    /** The received header's byte count (or the root's negative code). */
    public long bytes() {
        return inbox.getLong(BYTES);
    }

    /** The received header's root rank. */
    public int root() {
        return inbox.getInt(ROOT);
    }

    /** The received header's element size. */
    public int elementBytes() {
        return inbox.getInt(ELEMENT_BYTES);
    }

    /** True when the received header carries the root's bytes at {@link #PAYLOAD}. */
    public boolean inline() {
        return inbox.getInt(FLAGS) != 0;
    }

    private static int payloadBytes(ByteBuffer header) {
        return header.getInt(FLAGS) != 0 ? (int) header.getLong(BYTES) : 0;
    }

    /**
     * Posts the receive of call {@code call}'s header, from any leader. Only its first part is
     * received ahead ({@link #FIRST_PAYLOAD} bytes of payload), not the largest a header may carry:
     * that first message stays within the eager limit, so it lands whenever it comes and the header
     * can be read, and the rest of a larger payload follows as a second message from the same
     * sender.
     */
    public void expect(long call) throws MpiFailure {
        // Marks the inbox empty: withdraw() tells a header that came from a cancelled receive by it.
        inbox.putLong(CALL, NO_CALL);
        comm.iRecv(inbox, PAYLOAD + FIRST_PAYLOAD, MpiComm.ANY_SOURCE, tag(call), first);
        firstPosted = true;
        restPosted = false;
    }

    /**
     * True once the header posted for by {@link #expect} is in {@link #inbox()}, payload and all.
     *
     * @throws MpiFailure when the rest that came is not of the first part's call (nothing of it
     *         is kept as this header's): the relay is ready for the next {@link #expect}
     */
    public boolean arrived() throws MpiFailure {
        if (firstPosted) {
            if (!first.test()) {
                return false;
            }
            firstPosted = false;
            if (!expectRest()) {
                return true;
            }
        }
        if (restPosted && rest.test()) {
            restPosted = false;
            checkRest();
            return true;
        }
        return false;
    }

    /**
     * Posts the receive of the payload's rest when the header that arrived has one, from the rank
     * that sent its first part (which wrote itself into it): it sends the rest right after.
     */
    private boolean expectRest() throws MpiFailure {
        int bytes = payloadBytes(inbox);
        if (bytes <= FIRST_PAYLOAD) {
            return false;
        }
        // A message shorter than this call's rest would leave it: no call is numbered so.
        inbox.putLong(PAYLOAD + bytes, NO_CALL);
        comm.iRecv(inboxRest, restMessageBytes(bytes), inbox.getInt(SENDER), restTag(call()), rest);
        restPosted = true;
        return true;
    }

    private void checkRest() throws MpiFailure {
        long restCall = inbox.getLong(PAYLOAD + payloadBytes(inbox));
        if (restCall != call()) {
            throw MpiErrors.failed("hbcast: the rest of the header of call " + call() + " from rank "
                    + inbox.getInt(SENDER) + " is "
                    + (restCall == NO_CALL ? "shorter than the call's" : "of call " + restCall)
                    + ": a message of another call under the same tag, not spliced into this one");
        }
    }

    /**
     * Withdraws the receive posted by {@link #expect}: true when it is withdrawn, false when the
     * header had already arrived (it is then complete in {@link #inbox()}, payload and all).
     */
    public boolean withdraw() throws MpiFailure {
        if (firstPosted) {
            first.cancel();
            // A status telling whether it was cancelled would cost an object per withdrawal: a header that
            // came instead wrote its call number over NO_CALL.
            first.waitFor();
            firstPosted = false;
            if (inbox.getLong(CALL) == NO_CALL) {
                return true;
            }
            // The header came after all: take its rest too, so nothing of it is left behind.
            expectRest();
        }
        if (restPosted) {
            rest.waitFor();
            restPosted = false;
            checkRest();
        }
        return false;
    }

    /** The root sends its header (the outbox) to its children in the leaders' tree rooted at its own node. */
    public void send(int[] leaderRanks, int leaderCount, int me) throws MpiFailure {
        sendDown(outbox, outboxRest, leaderRanks, leaderCount, me, me);
    }

    /** A leader forwards the header it received to its children in the tree rooted at leader {@code rootLeader}. */
    public void forward(int[] leaderRanks, int leaderCount, int me, int rootLeader) throws MpiFailure {
        sendDown(inbox, inboxRest, leaderRanks, leaderCount, me, rootLeader);
    }

    /**
     * Sends {@code header} (its first part, then the payload's rest if any) to this leader's children,
     * farthest first: in the k-nomial tree, or in the {@link PayloadTree} where it takes the payload.
     *
     * @param leaderRanks communicator rank of each leader, by leader index
     */
    private void sendDown(
            ByteBuffer header, ByteBuffer restOfIt, int[] leaderRanks, int leaderCount, int me, int rootLeader)
            throws MpiFailure {
        int rel = KnomialTree.toRelative(me, rootLeader, leaderCount);
        int payload = payloadBytes(header);
        int n = payloadTree.takes(payload)
                ? payloadTree.shape().children(0, rel, leaderCount, payloadTree.radix(), children)
                : KnomialTree.children(rel, leaderCount, radix, children);
        long call = header.getLong(CALL);
        int bytes = PAYLOAD + payload;
        int firstBytes = Math.min(bytes, PAYLOAD + FIRST_PAYLOAD);
        boolean synchronous = false;
        if (n > 0) {
            // A forwarded header names its parent here; its children must take their rest from this rank.
            header.putInt(SENDER, rank);
            if (bytes > firstBytes) {
                header.putLong(bytes, call);
                // A larger rest leaves by rendezvous, which holds the sender already.
                synchronous = payload <= 2 * FIRST_PAYLOAD && (++restHeaders & (SYNCHRONOUS_EVERY - 1)) == 0;
            }
        }
        for (int c = 0; c < n; c++) {
            int dest = leaderRanks[KnomialTree.toAbsolute(children[c], rootLeader, leaderCount)];
            if (synchronous) {
                comm.iSendSynchronous(header, firstBytes, dest, tag(call), sends[sendCount++]);
            } else {
                comm.iSend(header, firstBytes, dest, tag(call), sends[sendCount++]);
            }
            if (bytes > firstBytes) {
                comm.iSend(restOfIt, restMessageBytes(payload), dest, restTag(call), sends[sendCount++]);
            }
        }
    }

    /** True once every header sent by {@link #send} or {@link #forward} has left this rank's buffers. */
    public boolean sent() throws MpiFailure {
        while (sendCount > 0) {
            if (!sends[sendCount - 1].test()) {
                return false;
            }
            sendCount--;
        }
        return true;
    }
}
