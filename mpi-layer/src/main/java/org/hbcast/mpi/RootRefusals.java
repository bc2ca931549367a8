package org.hbcast.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
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
 * {@link #told}).
 *
 * <p>Rank 0 keeps one persistent receive posted ({@link #poll} tests it, allocating nothing); a
 * message carries its call's number and sender, so one of an earlier call is dropped. Messages flow
 * only when a program passes a bad root.
 */
public final class RootRefusals implements AutoCloseable {
    /** Clear of hbcast's other tags (the header relay's, the leaders' tree's, the agreements'). */
    static final int TAG = 0x4870;

    private static final int CALL = 0;
    private static final int RANK = 8;
    private static final int BYTES = 16;

    private final MpiComm comm;
    private final int size;
    /** At rank 0: the receive always posted, and where it lands. */
    private final MpiPersistentRequest receive;

    private final ByteBuffer inbox;
    /** Two calls are counted at once: a rank may tell of its next call before rank 0 ends this one. */
    private final long[] callOf = {-1, -1};

    private final int[] count = new int[2];
    private final boolean[][] toldBy;

    /** Collective in effect (every rank makes one); only rank 0 receives. */
    public RootRefusals(MpiComm comm) throws MpiFailure {
        this.comm = comm;
        this.size = comm.size();
        if (comm.rank() == 0) {
            inbox = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
            receive = comm.recvInit(inbox, BYTES, MpiComm.ANY_SOURCE, TAG);
            receive.start();
            toldBy = new boolean[2][size];
        } else {
            inbox = null;
            receive = null;
            toldBy = null;
        }
    }

    /** A rank other than 0 tells rank 0 that it passed a root out of range in {@code call}. */
    public void tell(long call, int rank) throws MpiFailure {
        ByteBuffer b = ByteBuffer.allocateDirect(BYTES).order(ByteOrder.nativeOrder());
        b.putLong(CALL, call).putLong(RANK, rank);
        // Sixteen bytes go eagerly: this returns at once, whatever rank 0 is doing.
        comm.send(b, BYTES, 0, TAG);
    }

    /** At rank 0: takes what arrived, without waiting. */
    public void poll() throws MpiFailure {
        while (receive.test()) {
            long call = inbox.getLong(CALL);
            int from = (int) inbox.getLong(RANK);
            receive.start();
            record(call, from);
        }
    }

    /** At rank 0: records rank 0's own refusal of {@code call}. */
    public void mine(long call) {
        record(call, 0);
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

    private void record(long call, int from) {
        int slot = (int) (call & 1);
        if (callOf[slot] < call) {
            // The slot's call is over: a late word of it is not this call's.
            callOf[slot] = call;
            count[slot] = 0;
            Arrays.fill(toldBy[slot], false);
        }
        if (callOf[slot] == call && from >= 0 && from < size && !toldBy[slot][from]) {
            toldBy[slot][from] = true;
            count[slot]++;
        }
    }

    /** Withdraws rank 0's receive. Local. */
    @Override
    public void close() throws MpiFailure {
        if (receive != null) {
            receive.cancel();
            receive.waitFor();
            receive.free();
        }
    }
}
