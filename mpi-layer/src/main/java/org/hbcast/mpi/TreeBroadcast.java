package org.hbcast.mpi;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiPersistentRequest;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.schedule.KnomialTree;
import org.hbcast.schedule.TreeShape;
import org.hbcast.stage.Awaited;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.ProgressWait;
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
 * chunk order, so MPI's non-overtaking rule matches them with one tag per call.
 *
 * <p>No message of one call is taken by another, and none of another cut:
 * <ul>
 *   <li>Calls alternate between two tags by the parity of their number (the caller's, the same on
 *       every rank), so what a failed call {@code q} left in flight is never matched by call
 *       {@code q + 1}.</li>
 *   <li>Down every edge of a tree, a 32-byte stamp goes ahead of the chunks: the call's number, its
 *       bytes and chunk size. The receiver posts its receive first, so it takes whatever the sender
 *       sent first under the tag: the stamp of this call, or what an earlier call (two or more back)
 *       left, which then fails the call; and a sender that cut the message otherwise fails it too,
 *       naming the first chunk whose length differs, both lengths and the peer. No chunk's receive
 *       is posted before the parents' stamps are checked; after that, every message under the tag
 *       from a parent is one of this call's chunks, as long as expected (a longer one would be
 *       {@code MPI_ERR_TRUNCATE} on this rank's communicator, which must return errors).</li>
 * </ul>
 * Open MPI's bindings tell a received length only through an {@code mpi.Status} allocated per
 * completed request; one stamp a call and edge costs a 32-byte message instead and keeps calls
 * allocation-free.
 *
 * <p>Each transfer is a persistent request kept per (tag, peer, chunk) while the same buffer comes
 * back cut alike ({@link PersistentRequests}, as {@link ChunkViews} keeps the slices): after the
 * first calls of each parity that meet every peer, a call allocates nothing. A failed call cancels
 * its receives and waits until each is cancelled or complete, so no late message lands in the
 * caller's buffer; {@link #close()} frees the requests.
 */
public final class TreeBroadcast implements Stage, AutoCloseable {
    /** Chunks in flight per direction: enough to keep the network busy, few enough to stay cheap. */
    static final int WINDOW = 8;

    private static final int MAX_TREES = 2;
    /** Stamp fields: the call's number, its bytes, its chunk size; a constant last, which a shorter message leaves at 0. */
    private static final int STAMP_CALL = 0;

    private static final int STAMP_BYTES = 8;
    private static final int STAMP_CHUNK = 16;
    private static final int STAMP_MAGIC = 24;
    static final int STAMP_LENGTH = 32;
    private static final long MAGIC = 0x6862_6361_7374_5431L;
    /** How long an abort waits for a cancelled receive that had already matched to complete. */
    private static final long ABORT_WAIT_NS = 10_000_000_000L;

    private final ChunkViews views = new ChunkViews();
    /** The requests of even calls and of odd ones: each under its own tag. */
    private final PersistentRequests[] byParity = new PersistentRequests[2];

    private PersistentRequests requests;
    private final ByteBuffer stampOut = ByteBuffer.allocateDirect(STAMP_LENGTH).order(ByteOrder.nativeOrder());
    /** Per tree: the stamp from its parent. */
    private final ByteBuffer[] stampIn = new ByteBuffer[MAX_TREES];

    private final MpiRequest[] stampReceives = new MpiRequest[MAX_TREES];
    /** Per tree, then child: the stamp sends. */
    private MpiRequest[] stampSends = new MpiRequest[0];
    /**
     * Idle request slots beside each array of requests, one per entry: an immediate transfer past
     * {@link PersistentRequests#LIMIT} goes into its entry's slot, so it costs only the binding's request.
     */
    private final MpiRequest[] stampReceiveSpares;

    private MpiRequest[] stampSendSpares = new MpiRequest[0];
    private final MpiRequest[] receiveSpares;
    private MpiRequest[] sendSpares = new MpiRequest[0];
    private final MpiComm comm;

    private final ProgressWait abortWait = ProgressWait.backingOff(ABORT_WAIT_NS);
    /** What the bounded wait of {@link #abort} waits for (it gives up without a report). */
    private static final Awaited CANCELLED_RECEIVE = () -> "a cancelled receive of the leaders' tree to settle";

    private long call;
    private long bytes;
    private int chunkBytes;
    private boolean stampsPosted;
    private boolean stampsSent;
    /** Parents' stamps not checked yet: no chunk counts as arrived before they are. */
    private int stampsAwaited;

    private int stampSendsPending;
    /** Per tree: the parent's communicator rank (-1 at the root) and the children's. */
    private final int[] parents = new int[MAX_TREES];

    private final int[][] children = new int[MAX_TREES][0];
    private final int[] childCounts = new int[MAX_TREES];
    private int maxChildren;
    private int trees;
    private final MpiRequest[] receives = new MpiRequest[WINDOW];
    /** Receives completed ahead of {@code received}, by window slot. */
    private final boolean[] arrived = new boolean[WINDOW];

    private MpiRequest[] sends = new MpiRequest[0];

    private boolean root;
    private int chunks;
    private int received; // leading chunks that have arrived (at the root: fed, or all of them)
    private int receivesPosted;
    private int forwarded; // leading chunks whose sends to every child are posted
    private int sendsCompleted; // leading chunks whose sends have all completed
    private boolean fed; // the root's chunks become ready one by one (feed)
    /** The call was aborted: its requests are cancelled and freed, only the description of the wait is left. */
    private boolean aborted;

    /**
     * @param comm a communicator that returns errors ({@code MPI.ERRORS_RETURN}): a truncated chunk
     *        must fail the call, not the job
     * @param evenTag the tag of even-numbered calls
     * @param oddTag the tag of odd-numbered calls, different
     */
    public TreeBroadcast(MpiComm comm, int evenTag, int oddTag) {
        if (evenTag == oddTag) {
            throw new IllegalArgumentException("the two parities need two tags, not " + evenTag + " twice");
        }
        this.byParity[0] = new PersistentRequests(comm, evenTag);
        this.byParity[1] = new PersistentRequests(comm, oddTag);
        this.requests = byParity[0];
        this.comm = comm;
        this.stampReceiveSpares = spares(comm, MAX_TREES);
        this.receiveSpares = spares(comm, WINDOW);
        for (int t = 0; t < MAX_TREES; t++) {
            stampIn[t] = ByteBuffer.allocateDirect(STAMP_LENGTH).order(ByteOrder.nativeOrder());
        }
    }

    /**
     * Starts a broadcast.
     *
     * @param call the call's number, the same on every participant, one more than the previous
     *        call's (numbers count, and are checked, across calls that did not run the tree too)
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
            long call,
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
            Arrays.fill(stampReceives, null);
            Arrays.fill(stampSends, null);
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
        this.call = call;
        this.bytes = bytes;
        this.chunkBytes = chunkBytes;
        requests = byParity[(int) (call & 1)];
        if (sends.length < WINDOW * Math.max(maxChildren, 1)) {
            sends = new MpiRequest[WINDOW * Math.max(maxChildren, 1)];
            sendSpares = spares(comm, sends.length);
        }
        if (stampSends.length < MAX_TREES * maxChildren) {
            stampSends = new MpiRequest[MAX_TREES * maxChildren];
            stampSendSpares = spares(comm, stampSends.length);
        }
        // The stamp buffer is free: every send of the previous call completed, or it was aborted and
        // its sends, 32 bytes and eager, left with their copies.
        stampOut.putLong(STAMP_CALL, call)
                .putLong(STAMP_BYTES, bytes)
                .putInt(STAMP_CHUNK, chunkBytes)
                .putLong(STAMP_MAGIC, MAGIC);
        stampsAwaited = 0;
        if (chunks > 0) {
            for (int t = 0; t < trees; t++) {
                stampsAwaited += parents[t] >= 0 ? 1 : 0;
            }
        }
        stampsPosted = stampsAwaited == 0;
        stampsSent = chunks == 0 || maxChildren == 0;
        stampSendsPending = 0;
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
        } catch (MpiFailure e) {
            throw new StageException(
                    "MPI failed in the leaders' schedule (call " + call + "): " + MpiErrors.describe(e), e);
        }
    }

    private int exchange() throws MpiFailure {
        int work = 0;
        if (!stampsSent) {
            sendStamps();
            work++;
        }
        if (!stampsPosted) {
            // Before any chunk's receive: the first message from each parent under this tag is taken here.
            for (int t = 0; t < trees; t++) {
                if (parents[t] >= 0) {
                    stampIn[t].putLong(STAMP_MAGIC, 0);
                    stampReceives[t] = requests.startReceive(
                            parents[t], t, slots(), stampIn[t], STAMP_LENGTH, stampReceiveSpares[t]);
                }
            }
            stampsPosted = true;
            work++;
        }
        work += checkStamps();
        // Only after the stamps: a chunk of another cut, or of another call, never meets a receive, so it
        // can neither complete one short nor truncate into one (a truncated receive crashed Open MPI
        // 4.1.4's MPI_Finalize later in a test). The sender's stamp went just ahead of its first chunk.
        while (stampsAwaited == 0 && !root && receivesPosted < chunks && receivesPosted - received < WINDOW) {
            int s = receivesPosted++;
            receives[s % WINDOW] = requests.startReceive(
                    parents[s % trees],
                    MAX_TREES + s,
                    slots(),
                    views.view(s),
                    views.chunkLength(s),
                    receiveSpares[s % WINDOW]);
            work++;
        }
        // Chunks of two trees come from two parents: any of the window may complete first.
        for (int s = received; s < receivesPosted; s++) {
            MpiRequest r = receives[s % WINDOW];
            if (r != null && completed(r, s)) {
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
                sends[base + c] =
                        requests.startSend(kids[c], MAX_TREES + s, slots(), view, length, sendSpares[base + c]);
            }
            forwarded++;
            work++;
        }
        while (sendsCompleted < forwarded && sendsDone(sendsCompleted)) {
            sendsCompleted++;
            work++;
        }
        for (int i = 0; stampSendsPending > 0 && i < stampSends.length; i++) {
            if (stampSends[i] != null && stampSends[i].test()) {
                stampSends[i] = null;
                stampSendsPending--;
                work++;
            }
        }
        return work;
    }

    /** Request slots per peer: the stamp of each tree, then the chunks. */
    private int slots() {
        return MAX_TREES + chunks;
    }

    /** This call's stamp to every child of every tree, ahead of its chunks. */
    private void sendStamps() throws MpiFailure {
        for (int t = 0; t < trees; t++) {
            int[] kids = children[t];
            for (int c = 0; c < childCounts[t]; c++) {
                int i = t * maxChildren + c;
                stampSends[i] = requests.startSend(kids[c], t, slots(), stampOut, STAMP_LENGTH, stampSendSpares[i]);
                stampSendsPending++;
            }
        }
        stampsSent = true;
    }

    /** Checks the parents' stamps that have come; returns how many. */
    private int checkStamps() {
        int work = 0;
        for (int t = 0; t < trees; t++) {
            MpiRequest r = stampReceives[t];
            if (r == null) {
                continue;
            }
            boolean done;
            try {
                done = r.test();
            } catch (MpiFailure e) {
                stampReceives[t] = null;
                throw new StageException(
                        "the leaders' schedule of call " + call + ": where its stamp ("
                                + STAMP_LENGTH + " bytes) was expected first from rank " + parents[t]
                                + " (parent in the leaders' schedule), another message came (" + MpiErrors.describe(e)
                                + "): a chunk left over from an earlier call under this call's tag, not taken",
                        e);
            }
            if (done) {
                stampReceives[t] = null;
                checkStamp(stampIn[t], parents[t]);
                stampsAwaited--;
                work++;
            }
        }
        return work;
    }

    private void checkStamp(ByteBuffer stamp, int peer) {
        long theirCall = stamp.getLong(STAMP_CALL);
        long theirBytes = stamp.getLong(STAMP_BYTES);
        int theirChunk = stamp.getInt(STAMP_CHUNK);
        if (stamp.getLong(STAMP_MAGIC) != MAGIC || theirBytes < 0 || theirChunk <= 0) {
            throw new StageException("the leaders' schedule of call " + call + ": where its stamp was expected first"
                    + " from rank " + peer + " (parent in the leaders' schedule), a message of another kind came: a"
                    + " chunk left over from an earlier call under this call's tag, not taken");
        }
        if (theirCall != call) {
            throw new StageException("the leaders' schedule of call " + call + ": rank " + peer
                    + " (parent in the leaders' schedule) sent the chunks of call " + theirCall + " first, left over"
                    + " from call " + theirCall + " under this call's tag; none is taken as this call's");
        }
        if (theirBytes == bytes && theirChunk == chunkBytes) {
            return;
        }
        int theirCount = Chunks.count(theirBytes, theirChunk);
        for (int s = 0; s < Math.max(chunks, theirCount); s++) {
            int mine = s < chunks ? views.chunkLength(s) : 0;
            int theirs = s < theirCount ? Chunks.length(s, theirChunk, theirBytes) : 0;
            if (mine != theirs) {
                throw new StageException("chunk " + s + " of " + chunks + " from rank " + peer
                        + " (parent in the leaders' schedule) in call " + call + ": expected " + mine
                        + " bytes, received " + theirs + " (rank " + peer + " cuts " + theirBytes
                        + " bytes into chunks of "
                        + theirChunk + ", this rank " + bytes + " into chunks of " + chunkBytes + ")");
            }
        }
    }

    /** Tests chunk {@code s}'s receive; a failure names the chunk, its length and the peer. */
    private boolean completed(MpiRequest r, int s) {
        try {
            return r.test();
        } catch (MpiFailure e) {
            receives[s % WINDOW] = null;
            throw new StageException(
                    "chunk " + s + " of " + chunks + " from rank " + parents[s % trees]
                            + " (parent in the leaders' schedule) in call " + call + ": expected "
                            + views.chunkLength(s)
                            + " bytes, received more or failed: " + MpiErrors.describe(e),
                    e);
        }
    }

    /** Chunk {@code s} is in the buffer: among the leading ones, or arrived ahead of them. */
    private boolean present(int s) {
        return s < received || (s < receivesPosted && arrived[s % WINDOW]);
    }

    private boolean sendsDone(int s) throws MpiFailure {
        int base = (s % WINDOW) * maxChildren;
        for (int c = 0; c < maxChildren; c++) {
            MpiRequest r = sends[base + c];
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
        return received == chunks && sendsCompleted == chunks && stampSendsPending == 0;
    }

    /** What this participant still waits for, naming the peer, for timeout messages. */
    @Override
    public String describeWait() {
        if (fed && received < chunks) {
            return "chunk " + received + " of " + chunks + " to be staged into the root's buffer";
        }
        if (received < chunks) {
            return "chunk " + received + " of " + chunks + " of call " + call + " from rank "
                    + parents[received % trees] + " (parent in the leaders' schedule)"
                    + (stampsAwaited > 0 ? ", and its stamp ahead of the chunks" : "");
        }
        int base = (sendsCompleted % WINDOW) * maxChildren;
        for (int c = 0; c < maxChildren; c++) {
            if (sends[base + c] != null) {
                return "the send of chunk " + sendsCompleted + " of " + chunks + " to rank "
                        + children[sendsCompleted % trees][c] + " (child in the leaders' schedule)";
            }
        }
        if (stampSendsPending > 0) {
            return "the send of call " + call + "'s stamp to a child in the leaders' schedule";
        }
        return "nothing";
    }

    /**
     * Gives up the call after a failure: cancels the receives still posted and waits until each is
     * cancelled, or complete where its message had already matched (for at most
     * {@link #ABORT_WAIT_NS}: the sender of a matched message is sending it), so no late message
     * lands in the caller's buffer after the call has failed; then frees every request (a send in
     * flight completes first; MPI cannot take it back). What the call waited for stays for
     * {@link #describeWait()}; the next {@link #start} makes new requests.
     */
    @Override
    public void abort() {
        if (aborted) {
            return;
        }
        aborted = true;
        cancel(stampReceives);
        cancel(receives);
        abortWait.reset();
        settle(stampReceives);
        settle(receives);
        for (MpiRequest r : stampSends) {
            if (r != null && !(r instanceof MpiPersistentRequest)) {
                try {
                    r.free();
                } catch (MpiFailure ignored) {
                    // As below.
                }
            }
        }
        for (MpiRequest r : sends) {
            if (r != null && !(r instanceof MpiPersistentRequest)) {
                try {
                    r.free();
                } catch (MpiFailure ignored) {
                    // As above.
                }
            }
        }
        try {
            clearRequests();
        } catch (MpiFailure ignored) {
            // As above.
        }
    }

    private static void cancel(MpiRequest[] posted) {
        for (MpiRequest r : posted) {
            if (r != null) {
                try {
                    r.cancel();
                } catch (MpiFailure ignored) {
                    // Best effort: the broadcast has failed already and says why.
                }
            }
        }
    }

    /** Completes each cancelled receive (a persistent one stays, inactive, for {@link PersistentRequests#clear()}). */
    private void settle(MpiRequest[] posted) {
        for (MpiRequest r : posted) {
            if (r == null) {
                continue;
            }
            try {
                while (!r.test()) {
                    if (abortWait.timedOut(0, CANCELLED_RECEIVE)) {
                        break;
                    }
                }
                if (!(r instanceof MpiPersistentRequest)) {
                    r.free();
                }
            } catch (MpiFailure ignored) {
                // It failed instead of completing: nothing more will land from it.
            }
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
            clearRequests();
        } catch (MpiFailure ignored) {
            // Tearing down: the communicator is freed next either way.
        }
    }

    private void freeRequests() {
        try {
            clearRequests();
        } catch (MpiFailure e) {
            throw new StageException("MPI failed to free the leaders' tree's requests: " + MpiErrors.describe(e), e);
        }
    }

    /** Both parities' requests; tries both, then throws the first failure. */
    private void clearRequests() throws MpiFailure {
        MpiFailure first = null;
        for (PersistentRequests table : byParity) {
            try {
                table.clear();
            } catch (MpiFailure e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }

    private static MpiRequest[] spares(MpiComm comm, int n) {
        MpiRequest[] slots = new MpiRequest[n];
        for (int i = 0; i < n; i++) {
            slots[i] = comm.newRequest();
        }
        return slots;
    }

    /** Persistent requests kept now, of both parities: for tests. */
    int persistentRequests() {
        return byParity[0].kept() + byParity[1].kept();
    }
}
