package org.hbcast.mpi;

import java.nio.Buffer;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;
import org.hbcast.schedule.KnomialTree;
import org.hbcast.schedule.TreeShape;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;

/**
 * The leaders' schedule as a {@link Stage}: a pipelined broadcast down the trees of a
 * {@link TreeShape} (k-nomial, chain or two trees) over non-blocking point-to-point, one message per
 * chunk, so that it runs in one loop with the stages inside the node.
 *
 * <p>Participants are given as communicator ranks indexed by tree position (for the hierarchy: the
 * leader of every node, the root's node led by the root itself). Chunk {@code s} travels down tree
 * {@code s % trees}: a participant forwards it to its children in that tree, farthest first, as soon
 * as it has arrived, while later chunks are still in flight; {@link #chunksReady()} tells the next
 * stage how many leading chunks it may use. Receives are posted a window ahead; sends are bounded by
 * the same window and leave in chunk order. A root started as fed sends only the chunks
 * {@link #feed} releases (a device leader's staging copies fill its buffer).
 *
 * <p>Chunks go as {@code MPI.BYTE}; both ends describe the same bytes, so the datatype only
 * matters for validation, which happens before this class is used. Between two ranks chunks go in
 * chunk order, so MPI's non-overtaking rule matches them with one tag.
 *
 * <p>Each transfer is a persistent request kept per (peer, chunk) while the same buffer comes back
 * cut alike ({@link PersistentRequests}, as {@link ChunkViews} keeps the slices): after the first
 * calls that meet every peer, a call allocates nothing. A failed call cancels its receives and
 * frees every request, so no late message lands in the caller's buffer; {@link #close()} frees them.
 */
public final class TreeBroadcast implements Stage, AutoCloseable {
    /** Chunks in flight per direction: enough to keep the network busy, few enough to stay cheap. */
    static final int WINDOW = 8;

    private static final int MAX_TREES = 2;

    private final ChunkViews views = new ChunkViews();
    private final PersistentRequests requests;
    /** Per tree: the parent's communicator rank (-1 at the root) and the children's. */
    private final int[] parents = new int[MAX_TREES];

    private final int[][] children = new int[MAX_TREES][0];
    private final int[] childCounts = new int[MAX_TREES];
    private int maxChildren;
    private int trees;
    private final Request[] receives = new Request[WINDOW];
    /** Receives completed ahead of {@code received}, by window slot. */
    private final boolean[] arrived = new boolean[WINDOW];

    private Request[] sends = new Request[0];

    private boolean root;
    private int chunks;
    private int received; // leading chunks that have arrived (at the root: fed, or all of them)
    private int receivesPosted;
    private int forwarded; // leading chunks whose sends to every child are posted
    private int sendsCompleted; // leading chunks whose sends have all completed
    private boolean fed; // the root's chunks become ready one by one (feed)
    /** The call was aborted: its requests are cancelled and freed, only the description of the wait is left. */
    private boolean aborted;

    public TreeBroadcast(Intracomm comm, int tag) {
        this.requests = new PersistentRequests(comm, tag);
    }

    /**
     * Starts a broadcast.
     *
     * @param shape the trees the chunks go down
     * @param participants communicator ranks by tree index; {@code n} of them are used
     * @param me this rank's tree index
     * @param rootIndex the tree index of the root
     * @param radix the k-nomial tree's radix (ignored by the other shapes)
     * @param data a direct buffer holding (at the root) or receiving the message from its address on
     * @param elementBytes bytes per element of {@code data} (slices are made in elements)
     * @param fed at the root: its chunks are not in {@code data} yet, {@link #feed} releases them
     */
    public void start(
            TreeShape shape,
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
        if (fed && rel != 0) {
            throw new IllegalArgumentException(
                    "only the root is fed its chunks; tree index " + me + " is not the root");
        }
        trees = shape.trees();
        maxChildren = 0;
        for (int t = 0; t < trees; t++) {
            int max = shape.maxChildren(n, radix);
            if (children[t].length < max) {
                children[t] = new int[max];
            }
            int[] kids = children[t];
            int count = shape.children(t, rel, n, radix, kids);
            for (int c = 0; c < count; c++) {
                kids[c] = participants[KnomialTree.toAbsolute(kids[c], rootIndex, n)];
            }
            childCounts[t] = count;
            maxChildren = Math.max(maxChildren, count);
            int parent = shape.parent(t, rel, n, radix);
            parents[t] = parent < 0 ? -1 : participants[KnomialTree.toAbsolute(parent, rootIndex, n)];
        }
        root = rel == 0;
        if (!views.reset(data, elementBytes, bytes, chunkBytes)) {
            // The requests point into the previous buffer's chunks.
            freeRequests();
        }
        chunks = Chunks.count(bytes, chunkBytes);
        if (sends.length < WINDOW * Math.max(maxChildren, 1)) {
            sends = new Request[WINDOW * Math.max(maxChildren, 1)];
        }
        Arrays.fill(arrived, false);
        received = root && !fed ? chunks : 0;
        this.fed = fed;
        receivesPosted = 0;
        // A leaf of every tree forwards nothing: its sends are done from the start.
        forwarded = maxChildren == 0 ? chunks : 0;
        sendsCompleted = forwarded;
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
            throw new StageException("MPI failed in the leaders' schedule: " + e.getMessage(), e);
        }
    }

    private int exchange() throws MPIException {
        int work = 0;
        while (!root && receivesPosted < chunks && receivesPosted - received < WINDOW) {
            int s = receivesPosted++;
            receives[s % WINDOW] =
                    requests.startReceive(parents[s % trees], s, chunks, views.view(s), views.chunkLength(s));
            work++;
        }
        // Chunks of two trees come from two parents: any of the window may complete first.
        for (int s = received; s < receivesPosted; s++) {
            Request r = receives[s % WINDOW];
            if (r != null && r.test()) {
                receives[s % WINDOW] = null;
                arrived[s % WINDOW] = true;
                work++;
            }
        }
        while (received < receivesPosted && arrived[received % WINDOW]) {
            arrived[received % WINDOW] = false;
            received++;
        }
        while (forwarded < chunks && forwarded - sendsCompleted < WINDOW) {
            int s = forwarded;
            int count = childCounts[s % trees];
            if (count > 0 && !present(s)) {
                break;
            }
            Buffer view = views.view(s);
            int length = views.chunkLength(s);
            int base = (s % WINDOW) * maxChildren;
            int[] kids = children[s % trees];
            for (int c = 0; c < count; c++) {
                sends[base + c] = requests.startSend(kids[c], s, chunks, view, length);
            }
            forwarded++;
            work++;
        }
        while (sendsCompleted < forwarded && sendsDone(sendsCompleted)) {
            sendsCompleted++;
            work++;
        }
        return work;
    }

    /** Chunk {@code s} is in the buffer: among the leading ones, or arrived ahead of them. */
    private boolean present(int s) {
        return s < received || (s < receivesPosted && arrived[s % WINDOW]);
    }

    private boolean sendsDone(int s) throws MPIException {
        int base = (s % WINDOW) * maxChildren;
        for (int c = 0; c < maxChildren; c++) {
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
            return "chunk " + received + " of " + chunks + " from rank " + parents[received % trees]
                    + " (parent in the leaders' schedule)";
        }
        int base = (sendsCompleted % WINDOW) * maxChildren;
        for (int c = 0; c < maxChildren; c++) {
            if (sends[base + c] != null) {
                return "the send of chunk " + sendsCompleted + " of " + chunks + " to rank "
                        + children[sendsCompleted % trees][c] + " (child in the leaders' schedule)";
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
