package org.hbcast.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

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
 * Both buffers are direct and in native byte order, read with absolute gets. Allocates the bindings' {@code Request} objects per message, nothing else.
 */
public final class HeaderRelay {
    public static final int CALL = 0;
    public static final int BYTES = 8;
    public static final int ROOT = 16;
    public static final int ELEMENT_BYTES = 20;
    public static final int FLAGS = 24;
    public static final int PAYLOAD = 64;
    /** Tags {@code TAG_BASE .. TAG_BASE + TAG_MASK}: below 32768, the least any MPI must allow. */
    static final int TAG_BASE = 0x6000;
    static final int TAG_MASK = 0x1FFF;

    private final Intracomm comm;
    private final int radix;
    private final ByteBuffer inbox;
    private final ByteBuffer outbox;
    private final int[] children;
    private Request[] sends;
    private int sendCount;
    private Request receive;

    /**
     * @param radix the leaders' tree radix
     * @param leaders the most leaders a tree will have (the node count)
     * @param payloadBytes the most data bytes a header carries
     */
    public HeaderRelay(Intracomm comm, int radix, int leaders, int payloadBytes) {
        this.comm = comm;
        this.radix = radix;
        this.inbox = ByteBuffer.allocateDirect(PAYLOAD + payloadBytes).order(ByteOrder.nativeOrder());
        this.outbox = ByteBuffer.allocateDirect(PAYLOAD + payloadBytes).order(ByteOrder.nativeOrder());
        this.children = new int[Math.max(1, KnomialTree.maxChildren(Math.max(leaders, 1), radix))];
        this.sends = new Request[children.length];
    }

    static int tag(long call) {
        return TAG_BASE + (int) (call & TAG_MASK);
    }

    /** Where a received header lies (valid once {@link #arrived()}). */
    public ByteBuffer inbox() {
        return inbox;
    }

    /** Where the root writes the header it sends ({@link #send}). */
    public ByteBuffer outbox() {
        return outbox;
    }

    /** Posts the receive of call {@code call}'s header, from any leader. */
    public void expect(long call) throws MPIException {
        receive = comm.iRecv(inbox, inbox.capacity(), MPI.BYTE, MPI.ANY_SOURCE, tag(call));
    }

    /** True once the header posted for by {@link #expect} is in {@link #inbox()}. */
    public boolean arrived() throws MPIException {
        if (receive != null && receive.test()) {
            receive = null;
            return true;
        }
        return false;
    }

    /**
     * Withdraws the receive posted by {@link #expect}: true when it is withdrawn, false when the
     * header had already arrived (it is then in {@link #inbox()}).
     */
    public boolean withdraw() throws MPIException {
        if (receive == null) {
            return false;
        }
        receive.cancel();
        boolean cancelled = receive.waitStatus().isCancelled();
        receive = null;
        return cancelled;
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
        int tag = tag(header.getLong(CALL));
        for (int c = 0; c < n; c++) {
            int dest = leaderRanks[KnomialTree.toAbsolute(children[c], rootLeader, leaderCount)];
            sends[sendCount++] = comm.iSend(header, bytes, MPI.BYTE, dest, tag);
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
