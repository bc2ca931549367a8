package org.hbcast.header;

import org.hbcast.call.ElementType;
import org.hbcast.call.HostCopy;
import org.hbcast.call.Message;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.stage.Awaited;
import org.hbcast.stage.ProgressWait;
import org.hbcast.transport.shm.CallBoard;

/**
 * Open MPI's contract for counts (see {@link CountRule#ROOT}) at the price of a header that goes one
 * way, from the root to the receivers, before the data: no rank waits for a receiver, and no
 * message is added where the data fits in the header.
 *
 * <ul>
 * <li>Inside a node, the root posts its byte count and element size on the node's {@link CallBoard}
 * and goes on; every other rank reads the header before it moves anything and runs the root's call.
 * <li>Across nodes, the root sends the header down a k-nomial tree of node leaders ({@link HeaderRelay});
 * each leader forwards it and posts it on its node's board on the root's behalf.
 * <li>The nodes here are the real ones, the ranks that share memory: virtual nodes of one host
 * share its board, since a header needs no emulated network to reach them.
 * <li>A message of at most its layout's capacity (the selector's, at most {@link #inlineBytes(boolean)})
 * rides in the header (when the options let the library choose how to move it): the broadcast is
 * then the header.
 * </ul>
 *
 * A receiver that cannot take the root's bytes (it passed fewer, a different root, a datatype they
 * do not divide into, or a bad argument) still takes part into scratch memory, so the others finish,
 * and then fails with the reason: only it fails, as with Open MPI.
 *
 * <p>Allocates only for an error (messages, scratch memory) and, across nodes, the bindings'
 * request objects.
 */
public final class CallHeaders {
    /** What {@link #exchange} found for this rank. */
    public enum Outcome {
        /** This rank posted the header: it is the root and sends its own bytes. */
        ROOT,
        /** This rank receives the root's bytes ({@link #rootBytes()}) into its own buffer. */
        RECEIVE,
        /** This rank must take part into scratch memory and then fail with {@link #problem()}. */
        SCRATCH,
        /** The call was refused by its claimer: nothing moves, every rank fails with {@link #problem()}. */
        REFUSED,
        /**
         * No header came (or no room) within the timeout, where the wait's limit gives up: the instance
         * is unusable, see {@link #problem()}. Under the default limit the wait goes on instead.
         */
        TIMED_OUT,
        /**
         * Two ranks claimed the root (or a header came that is not this call's): what is left in flight
         * cannot be matched safely, so the instance is unusable, see {@link #problem()}.
         */
        CONFLICT
    }

    /** The inline capacity of headers that carry no message: where the options choose how data moves. */
    public static final long NO_INLINE = -1;

    /** Radix of the leaders' header tree: few rounds for the few leaders a small message reaches. */
    public static final int HEADER_RADIX = 4;

    /**
     * Most bytes that ride in a header sent across a network, but between two crowded hosts ({@code
     * Candidates.CROWDED_NETWORK_HEADER_BYTES}): the leaders relay it unpipelined down their tree, so
     * past this a pipelined plan wins; a sixteenth of the board's {@link CallBoard#INLINE_BYTES},
     * which serves one host, where the header is the whole broadcast.
     */
    public static final int NETWORK_INLINE_BYTES = 256 << 10;

    /**
     * Idle rounds of rank 0's wait for a header between two looks at {@link RootRefusals}: they come
     * only from a program's mistake, so the look costs nothing to the calls that have a root.
     */
    private static final int REFUSAL_POLL_MASK = 63;

    private final CallBoard board;
    private final HeaderRelay relay;
    /** Who passed a root out of range, told to rank 0 (with {@code relay}; else null). */
    private final RootRefusals refusals;

    private final NodeLayout layout;
    private final int[] leaderRanks;
    private final int rank;
    private final int node;
    private final int position;
    /** Most bytes that ride in this instance's headers, {@link #NO_INLINE} for none. */
    private final long inlineCapacity;
    /**
     * Waits on the board: parks soon only where ranks take every core, so a waiter gives its core to
     * those that work; elsewhere it yields on, since the header may be crossing a network in µs.
     */
    private final ProgressWait wait;
    /** Waits on the network: yields longer, since a park costs more than the header's whole trip. */
    private final ProgressWait networkWait;

    /** What this rank waits for, for a report of a long wait: made once, reading the fields below. */
    private final Awaited headerFromBoard = () -> "the call's header from " + expectedRoot()
            + ": the root has not called bcast on this communicator yet, or has died";

    private final Awaited headerFromNetwork = () -> "the call's header from " + expectedRoot()
            + " through the node leaders: the root, or a leader between, has not called bcast on this"
            + " communicator yet, or has died";
    private final Awaited roomOnBoard = this::roomOnBoard;
    private final Awaited headerSent = () -> "the call's header to leave for the leaders of other nodes";
    /** The root this rank passed while it waits for the header, or -1 where it passed none in range. */
    private int awaitedRoot;

    private long call;
    /** The call whose header the relay's receive is posted for (by {@link #ready} or the exchange), else 0. */
    private long expected;
    /** Whether the header of call {@link #expected} has arrived (seen by {@link #ready} before the exchange). */
    private boolean expectedArrived;

    private long rootBytes;
    private int root;
    private boolean inlined;
    private String problem;

    private MpiErrorClass problemClass = MpiErrorClass.ERR_OTHER;

    /** The header exchange of a communicator that is one node, without inline payloads. */
    public CallHeaders(CallBoard board, int rank, ProgressWait wait) {
        this(board, null, null, null, rank, 0, rank, NO_INLINE, wait);
    }

    /**
     * @param board the node's board, null on a node of one rank
     * @param relay the leaders' header tree, null on a communicator of one node
     * @param refusals who passed a root out of range, told to rank 0 (with {@code relay})
     * @param layout the communicator's nodes (used with {@code relay})
     * @param inlineCapacity the most bytes of a message that ride in its header on this layout
     *        ({@code Selector.headerBytes}, at most the board's {@link CallBoard#INLINE_BYTES} and the
     *        relay's {@link HeaderRelay#payloadBytes()}), or {@link #NO_INLINE} where none may (the
     *        options choose how data moves)
     * @param wait how this rank waits on the board, and for how long (this object's alone)
     */
    public CallHeaders(
            CallBoard board,
            HeaderRelay relay,
            RootRefusals refusals,
            NodeLayout layout,
            int rank,
            int node,
            int position,
            long inlineCapacity,
            ProgressWait wait) {
        if (inlineCapacity > CallBoard.INLINE_BYTES) {
            throw new IllegalArgumentException(
                    "headers of " + inlineCapacity + " bytes do not fit the board's " + CallBoard.INLINE_BYTES);
        }
        if (relay != null && inlineCapacity > relay.payloadBytes()) {
            throw new IllegalArgumentException(
                    "headers of " + inlineCapacity + " bytes do not fit the relay's " + relay.payloadBytes());
        }
        this.board = board;
        this.relay = relay;
        this.refusals = refusals;
        this.layout = layout;
        this.leaderRanks = new int[layout == null ? 1 : layout.nodeCount()];
        this.rank = rank;
        this.node = node;
        this.position = position;
        this.inlineCapacity = inlineCapacity;
        this.wait = wait;
        this.networkWait = ProgressWait.yieldingLonger(wait.limit());
    }

    /**
     * Whether {@link #exchange} of the next call, with these arguments, would find its header (or room
     * to post it, with the payload it would carry) without waiting: a look that never blocks, for the
     * progress of a non-blocking call. Across nodes a leader posts the header's receive here, once per
     * call. A rank that passed a root out of range is always ready: its exchange takes part in the
     * refusal protocol at once.
     *
     * @param inlineWish the bytes the root wishes to ride in the header, 0 for none (as {@link
     *        #exchange}'s {@code inline}): room for them is looked for too, or a root whose readers
     *        are busy elsewhere would wait for them inside a call that must not wait
     */
    public boolean ready(String refused, int root, boolean rootInRange, long inlineWish) throws MpiFailure {
        long c = call + 1;
        if (!rootInRange) {
            return true;
        }
        if (root == rank || (refused != null && relay == null)) {
            long payload = root == rank && refused == null && inlines(inlineWish) ? inlineWish : 0;
            return board == null || board.hasRoom(c, payload);
        }
        if (relay != null && position == 0) {
            return headerArrived(c) || (board != null && board.isPosted(c));
        }
        return board == null || board.isPosted(c);
    }

    /** Whether a root's message of {@code bytes} that it wishes in the header rides there. */
    private boolean inlines(long bytes) {
        return bytes <= inlineCapacity;
    }

    /** Posts the relay's receive for call {@code c} once, then looks whether its header arrived. */
    private boolean headerArrived(long c) throws MpiFailure {
        if (expected != c) {
            relay.expect(c);
            expected = c;
            expectedArrived = false;
        }
        if (!expectedArrived) {
            expectedArrived = relay.arrived();
        }
        return expectedArrived;
    }

    /** Cancels the relay's posted receive (see {@link HeaderRelay#withdraw()}); the next look posts anew. */
    private boolean withdraw() throws MpiFailure {
        expected = 0;
        return relay.withdraw();
    }

    /**
     * Most bytes of a message that ride in its header on one host (no network between its nodes), or
     * by default across one.
     */
    public static int inlineBytes(boolean oneHost) {
        return oneHost ? CallBoard.INLINE_BYTES : NETWORK_INLINE_BYTES;
    }

    /**
     * The header capacity of a layout whose selector wishes {@code wished} bytes ({@code
     * Selector.headerBytes}): that, but at most {@link #NETWORK_INLINE_BYTES} where virtual nodes
     * lie on several real hosts. Their selector plans one host's nodes (it knows the virtual layout
     * only), and its one-host capacity (512 KiB-4 MiB) would ride the leaders' network messages
     * untried.
     *
     * @param severalHosts whether the communicator's real hosts are more than one
     * @param virtualNodes whether the selector's nodes are virtual
     */
    public static long layoutCapacity(long wished, boolean severalHosts, boolean virtualNodes) {
        return severalHosts && virtualNodes ? Math.min(wished, NETWORK_INLINE_BYTES) : wished;
    }

    /**
     * This rank's side of the next call's header.
     *
     * @param refused this rank's argument error, or null when its arguments are good
     * @param root the root this rank passed (any value when {@code rootInRange} is false: this rank
     *        then fails the call; on one node the first claimer refuses it, across nodes rank 0 does
     *        where no rank is the root, see {@link RootRefusals})
     * @param bytes this rank's byte count (when {@code refused} is null)
     * @param type this rank's element type (when {@code refused} is null)
     * @param data this rank's message (when {@code refused} is null), for a payload that rides in the
     *        header; null for none
     * @param inline whether the root wants the message to ride in the header where it fits (receivers'
     *        value is ignored: the header tells them)
     */
    public Outcome exchange(
            String refused, int root, boolean rootInRange, long bytes, ElementType type, Message data, boolean inline)
            throws MpiFailure {
        long c = ++call;
        problem = null;
        problemClass = MpiErrorClass.ERR_OTHER;
        inlined = false;
        // A root out of range is refused by whoever claims first on one node. Across nodes such a rank
        // claims nothing: the real root may be elsewhere, sending already; it tells rank 0 and waits for
        // the header like any receiver, and rank 0 sends a refusal only when no header can come.
        boolean claims = rootInRange ? root == rank : refused != null && relay == null;
        if (!rootInRange && relay != null) {
            if (rank == 0) {
                refusals.mine(c);
                // Ranks that named rank 0 wait for a header it will not send: find out whether any does.
                refusals.ask(c);
            } else {
                refusals.tell(c, rank);
            }
        }
        if (claims) {
            Outcome posted = post(c, refused, bytes, type, inline ? data : null);
            if (posted != null) {
                return posted;
            }
            // Another rank of the node claimed the call first: this rank reads its header.
        } else if (relay != null && position == 0) {
            return leaderOrMember(c, refused, root, rootInRange, bytes, type, data);
        }
        return member(c, refused, root, rootInRange, bytes, type, data);
    }

    /** The root's side: claims the call, posts the header on the board and sends it to the leaders. */
    private Outcome post(long c, String refused, long bytes, ElementType type, Message data) throws MpiFailure {
        boolean inline = refused == null && data != null && inlines(bytes);
        long posted = refused != null ? CallBoard.REFUSED : bytes;
        int element = refused != null ? 0 : type.bytes();
        if (board != null) {
            if (!waitForRoom(c, inline ? bytes : 0)) {
                return Outcome.TIMED_OUT;
            }
            if (!board.claim(c)) {
                return null;
            }
        }
        if (relay != null) {
            // The network first: it is the longer way.
            relay.writeHeader(c, posted, rank, element, inline);
            if (inline) {
                data.copyTo(HostCopy.address(relay.outbox()) + HeaderRelay.PAYLOAD);
            }
            relay.send(layout.leaders(rank, leaderRanks), leaderRanks.length, node);
        }
        if (board != null) {
            if (inline) {
                data.copyTo(board.payloadAddressToWrite(c, bytes));
            }
            board.post(c, posted, rank, element, inline);
            board.markRead(c);
        }
        if (!sent()) {
            return Outcome.TIMED_OUT;
        }
        this.root = rank;
        this.rootBytes = posted;
        this.inlined = inline;
        if (refused != null) {
            problem = refused;
            return Outcome.REFUSED;
        }
        return Outcome.ROOT;
    }

    /**
     * Node rank 0 across nodes: it leads its node unless the root is on it, which it learns from
     * whichever comes first, the header from the network or the root's post on the board.
     */
    private Outcome leaderOrMember(
            long c, String refused, int root, boolean rootInRange, long bytes, ElementType type, Message data)
            throws MpiFailure {
        networkWait.reset();
        int rounds = 0;
        awaitedRoot = rootInRange ? root : -1;
        boolean answered = false;
        do {
            boolean arrived = headerArrived(c);
            while (!arrived) {
                if (rank != 0
                        && root == 0
                        && !answered
                        && (++rounds & REFUSAL_POLL_MASK) == 0
                        && refusals.askedFor(c)) {
                    // Rank 0 passed a root out of range and asks whether anyone waits for its header: this host does.
                    refusals.tellWaitsForRankZero(c, rank);
                    answered = true;
                }
                if (rank == 0 && (++rounds & REFUSAL_POLL_MASK) == 0 && noHeaderCanCome(c, root, rootInRange)) {
                    if (withdraw()) {
                        Outcome refusal = post(c, refused != null ? refused : refusedRoot(c, root), 0, null, null);
                        // A rank of this node claimed first after all: its header is the call's.
                        return refusal != null ? refusal : member(c, refused, root, rootInRange, bytes, type, data);
                    }
                    break;
                }
                if (board != null && board.isPosted(c)) {
                    if (withdraw()) {
                        return member(c, refused, root, rootInRange, bytes, type, data);
                    }
                    return conflict("call " + c + " had a root on this node (rank " + board.rank(c)
                            + ") and another that sent its header over the network");
                }
                if (networkWait.timedOut(0, headerFromNetwork)) {
                    if (withdraw()) {
                        problem = wait.limit().timedOut(headerFromNetwork);
                        return Outcome.TIMED_OUT;
                    }
                    break;
                }
                arrived = headerArrived(c);
            }
            // The next look (a header of an earlier call left behind) posts a new receive.
            expected = 0;
            // A header of an earlier call under the same tag is one a disagreeing root left behind: drop it.
        } while (relay.call() < c);
        long posted = relay.bytes();
        int claimer = relay.root();
        int element = relay.elementBytes();
        boolean inline = relay.inline();
        long payload = HostCopy.address(relay.inbox()) + HeaderRelay.PAYLOAD;
        if (relay.call() != c || claimer < 0 || claimer >= layout.size() || layout.nodeOf(claimer) == node) {
            return conflict(
                    "the header received for call " + c + " is of call " + relay.call() + " from root " + claimer);
        }
        relay.forward(layout.leaders(claimer, leaderRanks), leaderRanks.length, node, layout.nodeOf(claimer));
        if (board != null) {
            if (!waitForRoom(c, inline ? posted : 0)) {
                return Outcome.TIMED_OUT;
            }
            if (!board.claim(c)) {
                return conflict(
                        "call " + c + " had a root on another node (rank " + claimer + ") and one on this" + " node");
            }
            if (inline) {
                HostCopy.memoryToMemory(payload, board.payloadAddressToWrite(c, posted), posted);
            }
            board.post(c, posted, claimer, element, inline);
            board.markRead(c);
        }
        if (!sent()) {
            return Outcome.TIMED_OUT;
        }
        return decide(c, refused, root, bytes, type, data, posted, claimer, element, inline, payload);
    }

    /**
     * At rank 0, across nodes: whether no rank will send call {@code c}'s header, because every rank
     * passed a root out of range, or the root that rank 0 names did, or rank 0 passed one and another
     * host waits for rank 0's header (see {@link RootRefusals}).
     */
    private boolean noHeaderCanCome(long c, int root, boolean rootInRange) throws MpiFailure {
        refusals.poll();
        return refusals.everyRank(c) || (rootInRange ? refusals.told(c, root) : refusals.waitedFor(c));
    }

    private String refusedRoot(long c, int root) {
        return where() + "root " + root + " passed a root out of range in call " + c
                + " (see its error); nothing was sent";
    }

    /** A rank that reads the header on its node's board. */
    private Outcome member(
            long c, String refused, int root, boolean rootInRange, long bytes, ElementType type, Message data) {
        wait.reset();
        awaitedRoot = rootInRange ? root : -1;
        board.markWaiting(c, awaitedRoot);
        while (!board.isPosted(c)) {
            if (relay == null && rootInRange && root != rank && board.waitsForAnother(root, c)) {
                // The root this rank names waits for another root itself: nobody will post this call. Its
                // entry needs room like any header's: an entry still unread by a slow rank is not overwritten.
                if (!waitForRoom(c, 0)) {
                    return Outcome.TIMED_OUT;
                }
                if (board.claim(c)) {
                    board.post(c, CallBoard.NO_ROOT, rank, root, false);
                }
                continue;
            }
            if (wait.timedOut(0, headerFromBoard)) {
                problem = wait.limit().timedOut(headerFromBoard);
                return Outcome.TIMED_OUT;
            }
        }
        Outcome outcome = decide(
                c,
                refused,
                root,
                bytes,
                type,
                data,
                board.bytes(c),
                board.rank(c),
                board.elementBytes(c),
                board.isInline(c),
                board.payloadAddress(c));
        board.markRead(c);
        return outcome;
    }

    /** What a receiver does with the header it read; takes a payload that rode with it. */
    private Outcome decide(
            long c,
            String refused,
            int myRoot,
            long bytes,
            ElementType type,
            Message data,
            long posted,
            int claimer,
            int rootElement,
            boolean inline,
            long payload) {
        this.root = claimer;
        this.rootBytes = posted;
        this.inlined = inline;
        problemClass = MpiErrorClass.ERR_OTHER;
        if (posted == CallBoard.NO_ROOT) {
            problemClass = refused != null ? MpiErrorClass.ERR_OTHER : MpiErrorClass.ERR_ROOT;
            problem = refused != null
                    ? refused
                    : where() + "ranks disagree on the root: in call " + c + " rank " + claimer + " passed root "
                            + rootElement + ", which passed another root itself; no rank sent anything";
            return Outcome.REFUSED;
        }
        if (posted == CallBoard.REFUSED) {
            problem = refused != null
                    ? refused
                    : where() + "rank " + claimer + " refused call " + c + " (a bad argument"
                            + " there, see its error); nothing was sent";
            return Outcome.REFUSED;
        }
        problem = refused != null ? refused : check(c, myRoot, bytes, type, claimer, posted, rootElement);
        if (problem != null) {
            return Outcome.SCRATCH;
        }
        if (inline && data != null) {
            data.adopt(posted);
            data.copyFrom(payload);
        }
        return Outcome.RECEIVE;
    }

    private boolean waitForRoom(long c, long payloadBytes) {
        wait.reset();
        while (!board.hasRoom(c, payloadBytes)) {
            if (wait.timedOut(0, roomOnBoard)) {
                problem = wait.limit().timedOut(roomOnBoard);
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until the headers this rank sent have left it: at once for a header up to the first
     * payload (it goes eagerly); a payload's rest, up to the relay's capacity, may wait for its receiver, and
     * every {@link HeaderRelay#SYNCHRONOUS_EVERY}th header with an eager rest waits for its receivers to
     * take it.
     */
    private boolean sent() throws MpiFailure {
        if (relay == null) {
            return true;
        }
        networkWait.reset();
        while (!relay.sent()) {
            if (networkWait.timedOut(0, headerSent)) {
                problem = wait.limit().timedOut(headerSent);
                return false;
            }
        }
        return true;
    }

    private String roomOnBoard() {
        return "node rank " + board.slowestReader() + " to read the headers of earlier calls: it is up to "
                + CallBoard.ENTRIES + " calls behind, or has died";
    }

    private String expectedRoot() {
        return awaitedRoot >= 0 ? "root " + awaitedRoot : "its root";
    }

    private Outcome conflict(String what) {
        problem = where() + "ranks disagree on the root: " + what + "; messages may be left in flight, so this"
                + " instance stops here";
        return Outcome.CONFLICT;
    }

    private String check(long c, int myRoot, long bytes, ElementType type, int rootRank, long posted, int rootElement) {
        if (rootRank != myRoot) {
            problemClass = MpiErrorClass.ERR_ROOT;
            return where() + "ranks disagree on the root: " + sends(rootRank, posted, rootElement) + " in call " + c
                    + " but this rank passed root " + myRoot + "; this rank took part and dropped the data";
        }
        if (posted > bytes) {
            problemClass = MpiErrorClass.ERR_TRUNCATE;
            return where() + "message truncated: " + sends(rootRank, posted, rootElement) + " but this rank's count of "
                    + bytes / type.bytes() + " " + type.mpiName() + " holds only " + bytes
                    + " bytes; this rank took part and"
                    + " dropped the data";
        }
        if (posted % type.bytes() != 0) {
            problemClass = MpiErrorClass.ERR_TYPE;
            return where() + "datatype mismatch: " + sends(rootRank, posted, rootElement) + ", not a whole number of"
                    + " this rank's " + type.mpiName() + " (" + type.bytes()
                    + " bytes); this rank took part and dropped the data";
        }
        return null;
    }

    private static String sends(int rootRank, long posted, int rootElement) {
        return "root " + rootRank + " sends " + posted + " bytes (" + posted / Math.max(rootElement, 1) + " of its "
                + rootElement + "-byte elements)";
    }

    /**
     * The MPI error class of {@link #problem()}: the standard's class for a root, a count or a
     * datatype that does not match the root's, {@code ERR_OTHER} for anything else.
     */
    public MpiErrorClass problemClass() {
        return problemClass;
    }

    /** The root's bytes of the call {@link #exchange} just read or posted. */
    public long rootBytes() {
        return rootBytes;
    }

    /** The rank that posted the call's header. */
    public int root() {
        return root;
    }

    /** True when the root's bytes rode in the header: they are in place, no plan runs. */
    public boolean inlined() {
        return inlined;
    }

    /** Why this rank fails the call (for every outcome but {@link Outcome#ROOT} and {@link Outcome#RECEIVE}). */
    public String problem() {
        return problem;
    }

    private String where() {
        return "hbcast bcast on rank " + rank + ": ";
    }
}
