package org.hbcast.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * Carries a call's header (and, for small messages, its data) down a k-nomial tree of node leaders,
 * one way: the root's leader sends it and goes on; each leader receives it from whichever parent
 * the header's own root makes, forwards it to its children and reads it. No rank waits for a
 * receiver, and a leader needs no agreement on the root to receive, since the header names it.
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
 * 64      n     PAYLOAD        the root's bytes when FLAGS says so (n = BYTES)
 * </pre>
 *
 * The first message holds the header and at most {@link #FIRST_PAYLOAD} bytes of payload; the rest
 * of a larger payload follows from the same sender under {@link #restTag(long) restTag(q)}.
 *
 * Both buffers are direct and in native byte order, read with absolute gets. Allocates the bindings' {@code Request} objects per message, nothing else.
 */
public final class HeaderRelay {
    public static final int CALL = 0;
    public static final int BYTES = 8;
    public static final int ROOT = 16;
    public static final int ELEMENT_BYTES = 20;
    public static final int FLAGS = 24;
    public static final int PAYLOAD = 64;
    /** Payload bytes that travel in the header's first message; the rest follows in a second. */
    public static final int FIRST_PAYLOAD = 2048;
    /** Tags {@code TAG_BASE .. TAG_BASE + TAG_MASK}: below 32768, the least any MPI must allow. */
    static final int TAG_BASE = 0x6000;
    /** Tags of the payload's rest, {@code REST_TAG_BASE .. REST_TAG_BASE + TAG_MASK}, clear of hbcast's others. */
    static final int REST_TAG_BASE = 0x2000;
    static final int TAG_MASK = 0x1FFF;

    private final Intracomm comm;
    private final int radix;
    private final ByteBuffer inbox;
    private final ByteBuffer outbox;
    private final int[] children;
    private Request[] sends;
    private int sendCount;
    private final ByteBuffer inboxRest;
    private final ByteBuffer outboxRest;
    private Request first;
    private Request rest;

    /**
     * @param radix the leaders' tree radix
     * @param leaders the most leaders a tree will have (the node count)
     * @param payloadBytes the most data bytes a header carries
     */
    public HeaderRelay(Intracomm comm, int radix, int leaders, int payloadBytes) {
        this.comm = comm;
        this.radix = radix;
        int capacity = PAYLOAD + Math.max(payloadBytes, FIRST_PAYLOAD + 1);
        this.inbox = ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        this.outbox = ByteBuffer.allocateDirect(capacity).order(ByteOrder.nativeOrder());
        this.inboxRest = inbox.duplicate().position(PAYLOAD + FIRST_PAYLOAD).slice();
        this.outboxRest = outbox.duplicate().position(PAYLOAD + FIRST_PAYLOAD).slice();
        this.children = new int[Math.max(1, KnomialTree.maxChildren(Math.max(leaders, 1), radix))];
        this.sends = new Request[2 * children.length];
    }

    static int tag(long call) {
        return TAG_BASE + (int) (call & TAG_MASK);
    }

    static int restTag(long call) {
        return REST_TAG_BASE + (int) (call & TAG_MASK);
    }

    /** Where a received header lies (valid once {@link #arrived()}). */
    public ByteBuffer inbox() {
        return inbox;
    }

    /** Where the root writes the header it sends ({@link #send}). */
    public ByteBuffer outbox() {
        return outbox;
    }

    /**
     * Posts the receive of call {@code call}'s header, from any leader. Only its first part is
     * received ahead, at a small size ({@link #FIRST_PAYLOAD} bytes of payload): a receive posted
     * at the largest size made every small header slow over Open MPI's shared-memory transport. The
     * rest of a larger payload follows as a second message from the same sender.
     */
    public void expect(long call) throws MPIException {
        first = comm.iRecv(inbox, PAYLOAD + FIRST_PAYLOAD, MPI.BYTE, MPI.ANY_SOURCE, tag(call));
        rest = null;
    }

    /** True once the header posted for by {@link #expect} is in {@link #inbox()}, payload and all. */
    public boolean arrived() throws MPIException {
        if (first != null) {
            Status status = first.testStatus();
            if (status == null) {
                return false;
            }
            first = null;
            long bytes = inbox.getInt(FLAGS) != 0 ? inbox.getLong(BYTES) : 0;
            if (bytes > FIRST_PAYLOAD) {
                rest = comm.iRecv(inboxRest, (int) (bytes - FIRST_PAYLOAD), MPI.BYTE, status.getSource(),
                        restTag(inbox.getLong(CALL)));
            } else {
                return true;
            }
        }
        if (rest != null && rest.test()) {
            rest = null;
            return true;
        }
        return false;
    }

    /**
     * Withdraws the receive posted by {@link #expect}: true when it is withdrawn, false when the
     * header had already arrived (it is then complete in {@link #inbox()}).
     */
    public boolean withdraw() throws MPIException {
        if (first != null) {
            first.cancel();
            boolean cancelled = first.waitStatus().isCancelled();
            first = null;
            if (cancelled) {
                return true;
            }
            long bytes = inbox.getInt(FLAGS) != 0 ? inbox.getLong(BYTES) : 0;
            if (bytes > FIRST_PAYLOAD) {
                // The header came after all: take its rest too, so nothing of it is left behind.
                comm.recv(inboxRest, (int) (bytes - FIRST_PAYLOAD), MPI.BYTE, MPI.ANY_SOURCE,
                        restTag(inbox.getLong(CALL)));
            }
            return false;
        }
        if (rest != null) {
            rest.waitFor();
            rest = null;
        }
        return false;
    }

    /**
     * Sends {@code bytes} of {@code header} (the inbox or the outbox) to this leader's children in the
     * tree of {@code leaderCount} leaders rooted at leader {@code rootLeader}, farthest first.
     *
     * @param leaderRanks communicator rank of each leader, by leader index
     */
    public void forward(ByteBuffer header, int bytes, int[] leaderRanks, int leaderCount, int me, int rootLeader)
            throws MPIException {
        int rel = KnomialTree.toRelative(me, rootLeader, leaderCount);
        int n = KnomialTree.children(rel, leaderCount, radix, children);
        long call = header.getLong(CALL);
        int firstBytes = Math.min(bytes, PAYLOAD + FIRST_PAYLOAD);
        ByteBuffer rest = header == inbox ? inboxRest : outboxRest;
        for (int c = 0; c < n; c++) {
            int dest = leaderRanks[KnomialTree.toAbsolute(children[c], rootLeader, leaderCount)];
            sends[sendCount++] = comm.iSend(header, firstBytes, MPI.BYTE, dest, tag(call));
            if (bytes > firstBytes) {
                sends[sendCount++] = comm.iSend(rest, bytes - firstBytes, MPI.BYTE, dest, restTag(call));
            }
        }
    }

    /** True once every header sent by {@link #forward} has left this rank's buffers. */
    public boolean sent() throws MPIException {
        while (sendCount > 0) {
            if (!sends[sendCount - 1].test()) {
                return false;
            }
            sends[--sendCount] = null;
        }
        return true;
    }
}
