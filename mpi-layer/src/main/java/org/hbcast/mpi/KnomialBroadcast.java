package org.hbcast.mpi;

import java.nio.Buffer;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;

/**
 * The leaders' tree as a {@link Stage}: a pipelined k-nomial broadcast over non-blocking
 * point-to-point, one message per chunk, so that it runs in one loop with the stages inside the node.
 *
 * <p>Participants are given as communicator ranks indexed by tree position (for the hierarchy: the
 * leader of every node, the root's node led by the root itself). A participant forwards chunk
 * {@code s} to all its children, farthest first, as soon as it has arrived, while later chunks are
 * still in flight; {@link #chunksReady()} tells the next stage how many leading chunks it may use.
 * Receives are posted a window ahead; sends are bounded by the same window. A root started as fed
 * sends only the chunks {@link #feed} releases (a device leader's staging copies fill its buffer).
 *
 * <p>Chunks go as {@code MPI.BYTE}; both ends describe the same bytes, so the datatype only
 * matters for validation, which happens before this class is used.
 *
 * <p>Each transfer is a persistent request kept per (peer, chunk) while the same buffer comes back
 * cut alike ({@link PersistentRequests}, as {@link ChunkViews} keeps the slices): after the first
 * calls that meet every peer, a call allocates nothing. A failed call cancels its receives and
 * frees every request, so no late message lands in the caller's buffer; {@link #close()} frees them.
 */
public final class KnomialBroadcast implements Stage, AutoCloseable {
    /** Chunks in flight per direction: enough to keep the network busy, few enough to stay cheap. */
    static final int WINDOW = 8;

    private final ChunkViews views = new ChunkViews();
    private final PersistentRequests requests;
    private int[] children = new int[0];
    private Request[] receives = new Request[WINDOW];
    private Request[] sends = new Request[0];

    private int childCount;
    private int parentRank;
    private int chunks;
    private int received; // leading chunks that have arrived (at the root: fed, or all of them)
    private int receivesPosted;
    private int forwarded; // leading chunks whose sends to every child are posted
    private int sendsCompleted; // leading chunks whose sends have all completed
    private boolean fed; // the root's chunks become ready one by one (feed)
    /** The call was aborted: its requests are cancelled and freed, only the description of the wait is left. */
    private boolean aborted;

    public KnomialBroadcast(Intracomm comm, int tag) {
        this.requests = new PersistentRequests(comm, tag);
    }

    /**
     * Starts a broadcast.
     *
     * @param participants communicator ranks by tree index; {@code n} of them are used
     * @param me this rank's tree index
     * @param rootIndex the tree index of the root
     * @param data a direct buffer holding (at the root) or receiving the message from its address on
     * @param elementBytes bytes per element of {@code data} (slices are made in elements)
     * @param fed at the root: its chunks are not in {@code data} yet, {@link #feed} releases them
     */
    public void start(
            int[] participants,
            int n,
            int me,
            int rootIndex,
            int radix,
            Buffer data,
            int elementBytes,
            long bytes,
            int chunkBytes,
            boolean fed) {
        if (!aborted && !isDone()) {
            // The previous call was left unfinished without an abort (a caller's bug): nothing of it may stay posted.
            abort();
        }
        if (aborted) {
            // Cancelled and freed already; only kept for describeWait.
            Arrays.fill(receives, null);
            Arrays.fill(sends, null);
            aborted = false;
        }
        int rel = KnomialTree.toRelative(me, rootIndex, n);
        int max = KnomialTree.maxChildren(n, radix);
        if (children.length < max) {
            children = new int[max];
        }
        childCount = KnomialTree.children(rel, n, radix, children);
        for (int c = 0; c < childCount; c++) {
            children[c] = participants[KnomialTree.toAbsolute(children[c], rootIndex, n)];
        }
        parentRank =
                rel == 0 ? -1 : participants[KnomialTree.toAbsolute(KnomialTree.parent(rel, n, radix), rootIndex, n)];
        if (fed && rel != 0) {
            throw new IllegalArgumentException(
                    "only the root is fed its chunks; tree index " + me + " is not the root");
        }
        if (!views.reset(data, elementBytes, bytes, chunkBytes)) {
            // The requests point into the previous buffer's chunks.
            freeRequests();
        }
        chunks = Chunks.count(bytes, chunkBytes);
        if (sends.length < WINDOW * Math.max(childCount, 1)) {
            sends = new Request[WINDOW * Math.max(childCount, 1)];
        }
        received = parentRank < 0 && !fed ? chunks : 0;
        this.fed = fed;
        receivesPosted = 0;
        forwarded = 0;
        sendsCompleted = 0;
    }

    /** At a root started as fed: chunks {@code [0, ready)} hold data and may be sent. */
    @Override
    public void feed(int ready) {
        if (!fed) {
            throw new IllegalStateException("this tree stage was not started as fed");
        }
        if (ready < received || ready > chunks) {
            throw new IllegalArgumentException(
                    "chunks fed must grow within [" + received + ", " + chunks + "]: " + ready);
        }
        received = ready;
    }

    /** Makes what progress it can without blocking; returns a positive number when anything moved. */
    @Override
    public int progress() {
        try {
            return exchange();
        } catch (MPIException e) {
            throw new StageException("MPI failed in the leaders' tree: " + e.getMessage(), e);
        }
    }

    private int exchange() throws MPIException {
        int work = 0;
        while (parentRank >= 0 && receivesPosted < chunks && receivesPosted - received < WINDOW) {
            int s = receivesPosted++;
            receives[s % WINDOW] = requests.startReceive(parentRank, s, chunks, views.view(s), views.chunkLength(s));
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
            int length = views.chunkLength(s);
            int base = (s % WINDOW) * childCount;
            for (int c = 0; c < childCount; c++) {
                sends[base + c] = requests.startSend(children[c], s, chunks, view, length);
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

    /** Leading chunks present in the buffer (all of them at a root not fed). */
    @Override
    public int chunksReady() {
        return received;
    }

    @Override
    public int chunkCount() {
        return chunks;
    }

    @Override
    public boolean isDone() {
        return received == chunks && sendsCompleted == chunks;
    }

    /** What this participant still waits for, naming the peer, for timeout messages. */
    @Override
    public String describeWait() {
        if (fed && received < chunks) {
            return "chunk " + received + " of " + chunks + " to be staged into the root's buffer";
        }
        if (received < chunks) {
            return "chunk " + received + " of " + chunks + " from rank " + parentRank + " (tree parent)";
        }
        int base = (sendsCompleted % WINDOW) * childCount;
        for (int c = 0; c < childCount; c++) {
            if (sends[base + c] != null) {
                return "the send of chunk " + sendsCompleted + " of " + chunks + " to rank " + children[c]
                        + " (tree child)";
            }
        }
        return "nothing";
    }

    /**
     * Gives up the call after a failure: cancels the receives still posted, so no late message lands
     * in the caller's buffer, and frees every request (a send in flight completes first; MPI cannot
     * take it back). What the call waited for stays for {@link #describeWait()}; the next
     * {@link #start} makes new requests.
     */
    @Override
    public void abort() {
        if (aborted) {
            return;
        }
        aborted = true;
        for (Request r : receives) {
            if (r != null) {
                try {
                    r.cancel();
                    if (!(r instanceof Prequest)) {
                        r.free();
                    }
                } catch (MPIException ignored) {
                    // Best effort: the broadcast has failed already and says why.
                }
            }
        }
        for (Request r : sends) {
            if (r != null && !(r instanceof Prequest)) {
                try {
                    r.free();
                } catch (MPIException ignored) {
                    // As above.
                }
            }
        }
        try {
            requests.clear();
        } catch (MPIException ignored) {
            // As above.
        }
    }

    /** Frees the persistent requests, before the communicator is freed (a call left posted is aborted first). Idempotent. */
    @Override
    public void close() {
        if (!aborted && !isDone()) {
            abort();
            return;
        }
        try {
            requests.clear();
        } catch (MPIException ignored) {
            // Tearing down: the communicator is freed next either way.
        }
    }

    private void freeRequests() {
        try {
            requests.clear();
        } catch (MPIException e) {
            throw new StageException("MPI failed to free the leaders' tree's requests: " + e.getMessage(), e);
        }
    }

    /** Persistent requests kept now: for tests. */
    int persistentRequests() {
        return requests.kept();
    }
}
