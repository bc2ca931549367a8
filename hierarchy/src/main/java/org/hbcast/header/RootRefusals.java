package org.hbcast.header;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiPersistentRequest;

/**
 * Across hosts, who passed a root out of range, told to rank 0: the one fact rank 0 needs to know
 * whether a call will have a header at all.
 *
 * <p>A rank whose root is out of range cannot be the root, so across hosts it does not claim the
 * call: another rank may well be the real root, already sending its header and its first chunks
 * without waiting for anyone (were rank 0 to claim the call with a refusal, the real root's chunks
 * would stay queued towards rank 0's host and be taken by a later call). Such a rank tells rank 0
 * ({@link #tell}) and waits for the header like any receiver, taking part into scratch memory if
 * one comes. Rank 0 claims the call with a refusal only when no header can come: every rank passed
 * a root out of range, or the root that rank 0 itself names did ({@link #everyRank},
 * {@link #told}), or rank 0 itself passed one while others name rank 0 as their root.
 *
 * <p>That last case needs one more exchange, since rank 0 does not know what root the others
 * passed: rank 0 asks the other hosts' leaders ({@link #ask}), and a leader that waits for rank 0's
 * header answers so ({@link #askedFor}, {@link #tellWaitsForRankZero}); rank 0 then refuses the
 * call for everyone ({@link #waitedFor}). A leader that named another root does not answer: that
 * root's header comes, and rank 0 takes part into scratch memory.
 *
 * <p>Rank 0 keeps one persistent receive posted ({@link #poll} tests it, allocating nothing); a
 * message carries its call's number and sender, so one of an earlier call is dropped. Messages flow
 * only when a program passes a bad root.
 */
public final class RootRefusals implements AutoCloseable {
    /** Clear of hbcast's other tags (the header relay's, the leaders' tree's, the agreements'). */
    static final int TAG = 0x4870;
    /** Rank 0's question to the other hosts' leaders: does any wait for its header? */
    static final int ASK_TAG = 0x4872;

    private static final int CALL = 0;
    private static final int RANK = 8;
    /** {@link #OUT_OF_RANGE} or {@link #WAITS_FOR_RANK_ZERO}. */
    private static final int KIND = 16;

    private static final int BYTES = 24;
    private static final long OUT_OF_RANGE = 0;
    private static final long WAITS_FOR_RANK_ZERO = 1;

    private final MpiComm comm;
    private final int size;
    /** At rank 0: the receive always posted, and where it lands. */
    private final MpiPersistentRequest receive;

    private final ByteBuffer inbox;
    /** Two calls are counted at once: a rank may tell of its next call before rank 0 ends this one. */
    private final long[] callOf = {-1, -1};

    private final int[] count = new int[2];
    private final boolean[][] toldBy;
    /** At rank 0, per slot: whether a leader said it waits for rank 0's header. */
    private final boolean[] waitedFor = new boolean[2];
    /** At rank 0: the other hosts' leaders, whom {@link #ask} asks. */
    private final int[] otherLeaders;
    /** At another host's leader: rank 0's questions, always posted, and where they land. */
    private final MpiPersistentRequest questions;

    private final ByteBuffer question;
    /** At another host's leader: the newest call rank 0 asked about. */
    private long askedCall = -1;

    /**
     * Collective in effect (every rank makes one): rank 0 receives refusals, the first rank of each
     * other host of {@code hosts} receives rank 0's questions.
     */
    public RootRefusals(MpiComm comm, NodeLayout hosts) throws MpiFailure {
        this.comm = comm;
        this.size = comm.size();
        int rank = comm.rank();
        if (rank == 0) {
            inbox = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
            receive = comm.recvInit(inbox, BYTES, MpiComm.ANY_SOURCE, TAG);
            receive.start();
            toldBy = new boolean[2][size];
            otherLeaders = new int[hosts.nodeCount() - 1];
            for (int h = 1; h < hosts.nodeCount(); h++) {
                otherLeaders[h - 1] = hosts.rankAt(h, 0);
            }
        } else {
            inbox = null;
            receive = null;
            toldBy = null;
            otherLeaders = null;
        }
        if (rank != 0 && hosts.positionOf(rank) == 0) {
            question = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
            questions = comm.recvInit(question, BYTES, 0, ASK_TAG);
            questions.start();
        } else {
            question = null;
            questions = null;
        }
    }

    /** A rank other than 0 tells rank 0 that it passed a root out of range in {@code call}. */
    public void tell(long call, int rank) throws MpiFailure {
        send(0, TAG, call, rank, OUT_OF_RANGE);
    }

    /** At another host's leader: tells rank 0 that it waits for rank 0's header of {@code call}. */
    public void tellWaitsForRankZero(long call, int rank) throws MpiFailure {
        send(0, TAG, call, rank, WAITS_FOR_RANK_ZERO);
    }

    /** At rank 0, which passed a root out of range in {@code call}: asks the other hosts' leaders. */
    public void ask(long call) throws MpiFailure {
        for (int leader : otherLeaders) {
            send(leader, ASK_TAG, call, 0, WAITS_FOR_RANK_ZERO);
        }
    }

    /** At another host's leader: whether rank 0 asked about {@code call} (takes what arrived, without waiting). */
    public boolean askedFor(long call) throws MpiFailure {
        while (questions.test()) {
            askedCall = Math.max(askedCall, question.getLong(CALL));
            questions.start();
        }
        return askedCall == call;
    }

    /** Messages of a bad root only, off the hot path: a buffer of their own each. */
    private void send(int dest, int tag, long call, int rank, long kind) throws MpiFailure {
        ByteBuffer b = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
        b.putLong(CALL, call).putLong(RANK, rank).putLong(KIND, kind);
        // A few bytes go eagerly: this returns at once, whatever the receiver is doing.
        comm.send(b, BYTES, dest, tag);
    }

    /** At rank 0: takes what arrived, without waiting. */
    public void poll() throws MpiFailure {
        while (receive.test()) {
            long call = inbox.getLong(CALL);
            int from = (int) inbox.getLong(RANK);
            boolean waits = inbox.getLong(KIND) == WAITS_FOR_RANK_ZERO;
            receive.start();
            record(call, from, waits);
        }
    }

    /** At rank 0: records rank 0's own refusal of {@code call}. */
    public void mine(long call) {
        record(call, 0, false);
    }

    /** At rank 0: whether a leader said it waits for rank 0's header of {@code call} (as far as heard). */
    public boolean waitedFor(long call) {
        int slot = (int) (call & 1);
        return callOf[slot] == call && waitedFor[slot];
    }

    /** At rank 0: whether every rank passed a root out of range in {@code call} (as far as heard). */
    public boolean everyRank(long call) {
        int slot = (int) (call & 1);
        return callOf[slot] == call && count[slot] == size;
    }

    /** At rank 0: whether {@code rank} passed a root out of range in {@code call}. */
    public boolean told(long call, int rank) {
        int slot = (int) (call & 1);
        return callOf[slot] == call && toldBy[slot][rank];
    }

    private void record(long call, int from, boolean waits) {
        int slot = (int) (call & 1);
        if (callOf[slot] < call) {
            // The slot's call is over: a late word of it is not this call's.
            callOf[slot] = call;
            count[slot] = 0;
            Arrays.fill(toldBy[slot], false);
            waitedFor[slot] = false;
        }
        if (waits) {
            waitedFor[slot] |= callOf[slot] == call;
            return;
        }
        if (callOf[slot] == call && from >= 0 && from < size && !toldBy[slot][from]) {
            toldBy[slot][from] = true;
            count[slot]++;
        }
    }

    /** Withdraws the receives. Local. */
    @Override
    public void close() throws MpiFailure {
        for (MpiPersistentRequest r : new MpiPersistentRequest[] {receive, questions}) {
            if (r != null) {
                r.cancel();
                r.waitFor();
                r.free();
            }
        }
    }
}
