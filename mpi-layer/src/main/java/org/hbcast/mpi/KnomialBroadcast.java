package org.hbcast.mpi;

import java.nio.Buffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * A segmented, pipelined k-nomial broadcast over non-blocking point-to-point, driven by
 * {@link #progress()} so that the caller can run it in one loop with the intra-node ring.
 *
 * <p>Participants are given as communicator ranks indexed by tree position (for the hierarchy: the
 * leader of every node, the root's node led by the root itself). A participant forwards segment
 * {@code s} to all its children, farthest first, as soon as it has arrived, while later segments are
 * still in flight; {@link #segmentsReady()} tells the caller how many leading segments it may use.
 * Receives are posted a window ahead; sends are bounded by the same window.
 *
 * <p>Segments go as {@code MPI.BYTE}; both ends describe the same bytes, so the datatype only
 * matters for validation, which happens before this class is used.
 */
public final class KnomialBroadcast {
    /** Segments in flight per direction: enough to keep the network busy, few enough to stay cheap. */
    static final int WINDOW = 8;

    private final Intracomm comm;
    private final int tag;
    private final SegmentViews views = new SegmentViews();
    private int[] children = new int[0];
    private Request[] receives = new Request[WINDOW];
    private Request[] sends = new Request[0];

    private int childCount;
    private int parentRank;
    private int segments;
    private int received;        // leading segments that have arrived (all of them at the root)
    private int receivesPosted;
    private int forwarded;       // leading segments whose sends to every child are posted
    private int sendsCompleted;  // leading segments whose sends have all completed
    private boolean rootStaged;  // the root's segments become ready one by one (markRootReady)

    public KnomialBroadcast(Intracomm comm, int tag) {
        this.comm = comm;
        this.tag = tag;
    }

    /**
     * Starts a broadcast.
     *
     * @param participants communicator ranks by tree index; {@code n} of them are used
     * @param me this rank's tree index
     * @param rootIndex the tree index of the root
     * @param data a direct buffer holding (at the root) or receiving the message from its address on
     * @param elementBytes bytes per element of {@code data} (slices are made in elements)
     */
    public void start(int[] participants, int n, int me, int rootIndex, int radix, Buffer data,
                      int elementBytes, long bytes, int segmentBytes) {
        int rel = KnomialTree.toRelative(me, rootIndex, n);
        int max = KnomialTree.maxChildren(n, radix);
        if (children.length < max) {
            children = new int[max];
        }
        childCount = KnomialTree.children(rel, n, radix, children);
        for (int c = 0; c < childCount; c++) {
            children[c] = participants[KnomialTree.toAbsolute(children[c], rootIndex, n)];
        }
        parentRank = rel == 0 ? -1 : participants[KnomialTree.toAbsolute(KnomialTree.parent(rel, n, radix), rootIndex, n)];
        views.reset(data, elementBytes, bytes, segmentBytes);
        segments = SegmentViews.segmentCount(bytes, segmentBytes);
        if (sends.length < WINDOW * Math.max(childCount, 1)) {
            sends = new Request[WINDOW * Math.max(childCount, 1)];
        }
        received = parentRank < 0 ? segments : 0;
        rootStaged = false;
        receivesPosted = 0;
        forwarded = 0;
        sendsCompleted = 0;
    }

    /**
     * At the root: only the first {@code ready} segments hold data yet, the rest are still being
     * staged into the buffer (from a device); call again as more are ready. Without this call the
     * root sends every segment at once.
     */
    public void markRootReady(int ready) {
        if (parentRank >= 0) {
            throw new IllegalStateException("only the root is fed its segments");
        }
        if (ready < 0 || ready > segments || rootStaged && ready < received) {
            throw new IllegalArgumentException("ready segments must grow within [0, " + segments + "]: " + ready);
        }
        rootStaged = true;
        received = ready;
    }

    /** Makes what progress it can without blocking; returns a positive number when anything moved. */
    public int progress() throws MPIException {
        int work = 0;
        while (parentRank >= 0 && receivesPosted < segments && receivesPosted - received < WINDOW) {
            int s = receivesPosted++;
            receives[s % WINDOW] = comm.iRecv(views.view(s), views.segmentLength(s), MPI.BYTE, parentRank, tag);
            work++;
        }
        while (received < receivesPosted && receives[received % WINDOW].test()) {
            receives[received % WINDOW] = null;
            received++;
            work++;
        }
        while (forwarded < received && forwarded - sendsCompleted < WINDOW && childCount > 0) {
            int s = forwarded++;
            Buffer view = views.view(s);
            int length = views.segmentLength(s);
            int base = (s % WINDOW) * childCount;
            for (int c = 0; c < childCount; c++) {
                sends[base + c] = comm.iSend(view, length, MPI.BYTE, children[c], tag);
            }
            work++;
        }
        if (childCount == 0) {
            forwarded = received;
            sendsCompleted = received;
        }
        while (sendsCompleted < forwarded && sendsDone(sendsCompleted)) {
            sendsCompleted++;
            work++;
        }
        return work;
    }

    private boolean sendsDone(int s) throws MPIException {
        int base = (s % WINDOW) * childCount;
        for (int c = 0; c < childCount; c++) {
            Request r = sends[base + c];
            if (r != null) {
                if (!r.test()) {
                    return false;
                }
                sends[base + c] = null;
            }
        }
        return true;
    }

    /** Leading segments present in the buffer (all of them at the root). */
    public int segmentsReady() {
        return received;
    }

    public int segmentCount() {
        return segments;
    }

    public boolean isDone() {
        return received == segments && sendsCompleted == segments;
    }

    /** What this participant still waits for, naming the peer, for timeout messages. */
    public String pending() {
        if (received < segments) {
            return "segment " + received + " of " + segments + " from rank " + parentRank + " (tree parent)";
        }
        int base = (sendsCompleted % WINDOW) * childCount;
        for (int c = 0; c < childCount; c++) {
            if (sends[base + c] != null) {
                return "the send of segment " + sendsCompleted + " of " + segments + " to rank " + children[c]
                        + " (tree child)";
            }
        }
        return "nothing";
    }

    /** Cancels receives still posted after a failure, so no late message lands in the user's buffer. */
    public void cancel() {
        for (int i = 0; i < receives.length; i++) {
            Request r = receives[i];
            if (r != null) {
                try {
                    r.cancel();
                    r.free();
                } catch (MPIException ignored) {
                    // Best effort: the broadcast has failed already and says why.
                }
                receives[i] = null;
            }
        }
    }
}
