package org.hbcast.orchestration;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Function;
import org.hbcast.call.CallAgreement;
import org.hbcast.call.CallHeaders;
import org.hbcast.call.CountRule;
import org.hbcast.call.DeviceArguments;
import org.hbcast.call.ElementType;
import org.hbcast.call.HostCopy;
import org.hbcast.call.Message;
import org.hbcast.call.ThreadGuard;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.RingAbortedException;
import org.hbcast.mpi.HeaderRelay;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.RootRefusals;
import org.hbcast.mpi.StopNotices;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ReduceOp;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.select.Explanation;
import org.hbcast.select.InRunSelection;
import org.hbcast.select.Selector;
import org.hbcast.select.TuningAgreement;
import org.hbcast.settings.Log;
import org.hbcast.settings.Setting;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.cuda.CudaRingMember;
import org.hbcast.transport.shm.CallBoard;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmRingLinks;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;

/**
 * The calls of one {@code HierarchicalBcast} instance: sets up what its plans use (see
 * {@link #create}), then per call checks the arguments, agrees on the root's count (the node's call
 * headers or the per-call agreement, see {@link CountRule}), asks {@code auto}'s in-run selection for
 * the plan and hands it to the {@link PlanDriver}. A failure after anything was sent leaves the
 * instance unusable, naming the failure in every later call. One call at a time ({@link ThreadGuard}).
 */
public final class Broadcaster implements AutoCloseable {
    /** Smallest ring slot, so that explicit plans of small chunks still have room. */
    private static final int MIN_SLOT_BYTES = 64 << 10;
    /** Warm-up calls through the header path, each rank the root in turn: enough for the JIT's top tier. */
    static final int WARMUP_HEADER_CALLS = 2048;
    /**
     * Their sizes, in turn, so that the compiled path has seen each branch a program's small calls
     * take (a branch never taken in the warm-up is compiled as a trap, and the first program call
     * that takes it throws the compiled code away): a byte, a cache line, a few KiB. Every size up to
     * the header's first network message ({@link HeaderRelay#FIRST_PAYLOAD}) takes the same
     * branches but one, the payload ring's next lap, which large payloads take often (the warm-up
     * laps the ring once, in {@code warmUp}); larger sizes here would cost the warm-up the
     * network's time (a third of its calls at 32 KiB is 22 MB a host a round, 0.2 s at 1 Gbit/s).
     */
    private static final int[] WARMUP_HEADER_BYTES = {1, 64, 2048};
    /** Warm-up calls of each plan, of {@link #WARMUP_CHUNKS} chunks of {@link #WARMUP_CHUNK_BYTES}. */
    static final int WARMUP_PLAN_CALLS = 16;
    /**
     * More than a pipeline's window and a ring's slots, so that their reuse is compiled too; no more:
     * when these calls spanned the whole warm-up buffer (the header's capacity, 68-132 chunks) the
     * plans took most of a round, on the shaped 4+2+2 bed all of the warm-up's time (one round in
     * 2 s), and the JIT was far from done when the program began.
     */
    static final int WARMUP_CHUNKS = 16;

    static final int WARMUP_CHUNK_BYTES = 4096;
    /** How far past the header's capacity the warm-up's calls into the plans go. */
    static final int WARMUP_PAST_HEADER_BYTES = 16 << 10;
    /** Most warm-up rounds: the JITs of one node x 4 went quiet after 13-18 here, in 0.8-0.9 s. */
    static final int WARMUP_ROUNDS = 40;
    /**
     * Time after which no warm-up round starts. On the 2-host bed the JITs went quiet after 12-25
     * rounds in 1.7-2.6 s; cut at 1 s (3 rounds) they compiled on in the program's first calls, and
     * auto ran 1-256 B at 0.79-0.93 of Open MPI's speed (median of five launches per size, blocks
     * over twice their median in 3-34%), against 1.05-1.15 (0-17%) with the time to finish.
     */
    static final long WARMUP_LIMIT_NS = 3_000_000_000L;
    /**
     * A round in which no rank's JIT compiled for longer is quiet: the hot paths are compiled, what
     * still compiles (a millisecond here and there) is the JVM's own or the program's.
     */
    static final int WARMUP_QUIET_MILLIS = 1;
    /** Whether this JVM has run a warm-up: the JIT's work is per process, not per instance. */
    private static volatile boolean warmedUp;

    private final MpiComm comm;
    private final Topology topology;
    private final NodeLayout layout;
    private final BroadcastSettings settings;
    /** The settings as agreed at create, by variable name: rank 0's. */
    private final Map<String, String> agreed;

    private final Selector selector;
    /** The node's ring, made only when some host plan moves chunks through it (null on one-rank nodes). */
    private final ShmRingLinks ring;
    /** The node's fan-out segment, made only when some host plan moves chunks through it. */
    private final ShmFanout fanout;

    private final PlanDriver driver;
    private final int rank;
    private final int size;
    private final Message message = new Message();
    private final CallAgreement agreement;
    private final ThreadGuard guard;
    /**
     * The real node's board of call headers, on a real node of several ranks when the root's count
     * governs (else null); virtual nodes of one real node share it.
     */
    private final CallBoard board;
    /** Who passed a root out of range, told to rank 0, where headers cross a network (else null). */
    private final RootRefusals refusals;
    /** The call headers, when the root's count governs (see {@link CountRule#ROOT}; else null). */
    private final CallHeaders headers;
    /** In-run selection of {@code auto}: which plan each call runs while a size class is tried, and the verdicts. */
    private final InRunSelection selection;
    /** Direct memory that array messages are copied through: the transports move direct memory only. */
    private ByteBuffer arrayCopy;
    /** Where a rank that cannot take the root's bytes receives them, to drop them (made on first need). */
    private ByteBuffer scratch;

    /**
     * What every wait of a call does after the timeout: reports and waits on, or gives up where
     * {@code HBCAST_TIMEOUT_FAILS} asks for it; it numbers the program's calls for its reports.
     */
    private final WaitLimit waits;
    /** Tells the other ranks when this one stops, and hears when one of them has (in every wait). */
    private final StopNotices notices;
    /** The program's calls so far (the warm-up's are not counted), for the reports of long waits. */
    private long calls;
    /** True during create's warm-up, whose calls are not the program's: their waits say "setting up". */
    private boolean warming;

    private DeviceNode device;
    /**
     * Calls made through {@code bcast}, the warm-up's and failed ones included (the warm-up's direct
     * runs of a plan share the stamp of the call before them): the same count on every rank, which
     * stamps the tree's messages (see {@code TreeBroadcast}).
     */
    private long stamp;

    private String brokenBy;
    private boolean closed;

    private Broadcaster(
            MpiComm comm,
            Topology topology,
            BroadcastSettings settings,
            Map<String, String> agreed,
            Selector selector,
            ShmRingLinks ring,
            ShmFanout fanout,
            CallBoard board)
            throws MpiFailure {
        this.comm = comm;
        this.topology = topology;
        this.layout = topology.layout();
        this.settings = settings;
        this.agreed = agreed;
        this.ring = ring;
        this.fanout = fanout;
        this.rank = comm.rank();
        this.size = comm.size();
        this.selector = selector;
        this.notices = new StopNotices(comm, rank);
        this.waits = WaitLimit.ofCalls(settings.timeout().toNanos(), settings.timeoutFails(), rank)
                .drivingProgress(notices);
        int onMachine = topology.ranksOnMachine();
        this.driver = new PlanDriver(comm, topology, waits, ring, fanout);
        this.agreement = new CallAgreement(comm, rank, ProgressWait.forSharedCores(onMachine, waits));
        this.guard = new ThreadGuard(comm.library().threadLevel(), rank);
        this.board = board;
        // The header needs only shared memory, so virtual nodes of one host share its board: no
        // header crosses the emulated network where the real nodes can post it for each other.
        NodeLayout hosts = topology.hostLayout();
        boolean headed = settings.counts() == CountRule.ROOT && size > 1;
        this.refusals = headed && hosts.nodeCount() > 1 ? new RootRefusals(comm, hosts) : null;
        this.headers = !headed
                ? null
                : new CallHeaders(
                        board,
                        hosts.nodeCount() == 1
                                ? null
                                : new HeaderRelay(
                                        comm,
                                        CallHeaders.HEADER_RADIX,
                                        hosts.nodeCount(),
                                        CallHeaders.NETWORK_INLINE_BYTES),
                        refusals,
                        hosts,
                        rank,
                        topology.host(),
                        topology.hostPosition(),
                        settings.choices().algorithm() == Algorithm.AUTO,
                        ProgressWait.forSharedCores(onMachine, waits));
        this.selection = new InRunSelection(
                comm,
                selector,
                headers != null && settings.choices().algorithm() == Algorithm.AUTO,
                ProgressWait.forSharedCores(onMachine, waits));
    }

    /**
     * Sets up the broadcast on {@code comm} (collective over it): duplicates the communicator, agrees
     * the settings ({@link SettingsAgreement}: rank 0's, before anything they shape), discovers the
     * nodes, agrees on the selector's inputs (fingerprint, tuning table, calibration: see
     * {@link TuningAgreement}) and connects the node's shared-memory ring and fan-out segment, each
     * only where a plan uses it, with slots as large as the largest chunk planned for it. Every step
     * that can fail on some ranks only fails on all ({@link CreateTogether}), so no rank is left in a
     * collective the others gave up, and what was made is released once.
     *
     * @param toSettings the settings that the agreed values (by variable name) stand for
     */
    public static Broadcaster create(
            MpiComm comm, SettingsProposal proposal, Function<Map<String, String>, BroadcastSettings> toSettings)
            throws MpiFailure {
        MpiComm dup = MpiErrors.returnErrors(comm.dup());
        Topology topology = null;
        ShmRingLinks ring = null;
        ShmFanout fanout = null;
        CallBoard board = null;
        Broadcaster hb = null;
        try {
            Map<String, String> agreed = SettingsAgreement.agree(dup, proposal);
            BroadcastSettings settings = toSettings.apply(agreed);
            try {
                topology = Topology.discover(dup, settings.nodeSizes());
            } catch (IllegalArgumentException e) {
                // The node sizes are rank 0's on every rank: all of them refuse them alike.
                throw MpiErrors.badArgument("hbcast: " + e.getMessage());
            }
            boolean warmUp = coldSomewhere(dup);
            Selector selector = Selector.of(
                    settings.choices(),
                    ClusterShape.of(topology.layout(), topology.isVirtual()),
                    settings.choices().chunkBytes() != 0
                            ? settings.choices().chunkBytes()
                            : Selector.AUTO_MAX_CHUNK_BYTES,
                    TuningAgreement.agree(
                            dup, settings.tuningFile(), settings.keepsLearnt(), topology, Setting.environment()));
            // Every rank made the same plans from the same agreed inputs, so all of a node agree on what to
            // connect; a node that fails makes every node fail, not only its own ranks.
            String failure = null;
            try {
                if (topology.nodeComm().size() > 1 && selector.connects(IntraNode.RING)) {
                    ring = connectRing(topology, settings, selector);
                }
                if (topology.nodeComm().size() > 1 && selector.connects(IntraNode.FANOUT)) {
                    fanout = connectFanout(topology, settings, selector);
                }
            } catch (MpiFailure | RuntimeException e) {
                failure = e.getMessage();
            }
            CreateTogether.check(dup, failure);
            try {
                if (usesCallBoard(topology, settings)) {
                    board = NodeTransports.board(topology.hostComm(), dup.rank());
                }
            } catch (MpiFailure | RuntimeException e) {
                failure = e.getMessage();
            }
            CreateTogether.check(dup, failure);
            ByteBuffer warmUpBuffer = null;
            try {
                hb = new Broadcaster(dup, topology, settings, agreed, selector, ring, fanout, board);
                warmUpBuffer = warmUp ? hb.warmUpBuffer() : null;
            } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
                failure = "cannot set up its calls on rank " + dup.rank() + ": " + e;
            }
            CreateTogether.check(dup, failure);
            if (warmUp) {
                try {
                    hb.warmUp(warmUpBuffer);
                } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
                    // Past its first call a rank that fails may leave the others waiting in one; nothing in
                    // the warm-up fails on one rank alone once the settings are agreed and its memory is made.
                    failure = "the warm-up failed on rank " + dup.rank() + ": " + e;
                }
                CreateTogether.check(dup, failure);
            }
            hb.announce();
            return hb;
        } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
            if (hb != null) {
                hb.release();
            } else {
                closeQuietly(topology, board, fanout, ring);
                freeQuietly(dup);
            }
            throw e;
        }
    }

    /** Sizes whose plans the create line names. */
    private static final long[] ANNOUNCED_BYTES = {1 << 10, 1 << 20, 16 << 20};

    /**
     * At the info level ({@code HBCAST_LOG_LEVEL=info}), rank 0 logs one line for the communicator:
     * hbcast's and Open MPI's versions, the layout, the plans of a few sizes.
     */
    private void announce() {
        if (rank != 0 || !Log.isOn(System.Logger.Level.INFO)) {
            return;
        }
        StringBuilder plans = new StringBuilder();
        for (long bytes : ANNOUNCED_BYTES) {
            Plan p = selection.plan(bytes);
            plans.append(plans.length() == 0 ? "" : "; ")
                    .append(bytes >= 1 << 20 ? (bytes >> 20) + " MiB " : (bytes >> 10) + " KiB ")
                    .append(p.algorithm())
                    .append(p.algorithm() == Algorithm.NATIVE ? "" : " " + p.intra() + ", chunk " + p.chunkBytes());
        }
        String mpi;
        try {
            mpi = comm.library().version().lines().findFirst().orElse("?").strip();
        } catch (RuntimeException | LinkageError e) {
            mpi = "Open MPI (version unknown)";
        }
        String library = mpi;
        NodeLayout nodes = layout;
        StringBuilder sizes = new StringBuilder();
        for (int n = 0; n < nodes.nodeCount(); n++) {
            sizes.append(n == 0 ? "" : "+").append(nodes.nodeSize(n));
        }
        Log.info(() -> "hbcast " + Log.version() + " on " + library + ": " + size + " ranks, nodes " + sizes
                + (topology.isVirtual() ? " (virtual)" : "") + " on "
                + topology.hostLayout().nodeCount()
                + " host(s); algorithm " + settings.choices().algorithm() + "; plans: " + plans);
    }

    /**
     * Whether any rank's JVM still needs the warm-up (then all run it: it is collective). Every other
     * setting that the ranks must share is agreed before, by {@link SettingsAgreement}.
     */
    private static boolean coldSomewhere(MpiComm comm) throws MpiFailure {
        int[] cold = {warmedUp ? 0 : 1};
        comm.allReduce(cold, 1, ReduceOp.MAX);
        return cold[0] != 0 && comm.size() > 1;
    }

    /**
     * Runs the hot paths on small messages until the JIT has compiled them, so that a program's
     * first calls neither run interpreted nor pay for compilations (on a small node, four JVMs'
     * compiler threads take the cores the ranks need: a compile in the middle of a program's first
     * hundred calls stalled them for 2 to 7 ms). Collective and bounded: rounds of
     * {@link #WARMUP_HEADER_CALLS} calls through the full call path with a message that rides in its
     * header, {@link #WARMUP_PLAN_CALLS} among them with one past it, then as many of each plan the selector may
     * choose, on {@link #WARMUP_CHUNKS} small chunks, each rank the root in turn so every role is compiled; after each
     * round the ranks agree how long their JITs compiled during it, and stop after a quiet round (none
     * for longer than {@link #WARMUP_QUIET_MILLIS}), after
     * {@link #WARMUP_ROUNDS} rounds or past {@link #WARMUP_LIMIT_NS}. Once per JVM (see {@link #create}).
     */
    private void warmUp(ByteBuffer buf) throws MpiFailure {
        // A cold JIT's times would mislead the trials; the program's own calls decide.
        selection.pause(true);
        warming = true;
        try {
            boolean oneHost = topology.hostLayout().nodeCount() == 1;
            long start = System.nanoTime();
            if (headers != null) {
                // Before the rounds, the largest message that rides in the header untried until the call board's
                // payload ring has gone round once: a payload that would cross the ring's end starts the next lap, a
                // branch the small calls take once in several rounds, if at all. Untaken, the first 32 KiB calls of a
                // program threw the compiled header path away (the board's start, the leaders' leaderOrMember) while
                // four JVMs recompiled it on two cores: on the 2-host bed the probe's second block of 20 calls ran at
                // 87-101 us a call against 12-25 in the others, in ten launches of ten. Once per JVM: 4 MiB a host,
                // 35 ms at 1 Gbit/s. A byte first, so that the large payloads do not tile the ring exactly and one
                // must skip to the next lap.
                bcast(buf, 1, ElementType.BYTE, null, 0);
                int lapBytes = InRunSelection.untriedInlineBytes(oneHost);
                for (int i = 0; i <= CallBoard.RING_BYTES / lapBytes; i++) {
                    bcast(buf, lapBytes, ElementType.BYTE, null, i % size);
                }
            }
            int[] busy = new int[2];
            int rounds = 0;
            do {
                long compiled = JitActivity.compileMillis();
                warmUpRound(buf);
                rounds++;
                busy[0] = (int) Math.min(JitActivity.compileMillis() - compiled, Integer.MAX_VALUE);
                busy[1] = System.nanoTime() - start > WARMUP_LIMIT_NS ? 1 : 0;
                comm.allReduce(busy, busy.length, ReduceOp.MAX);
            } while (busy[0] > WARMUP_QUIET_MILLIS && busy[1] == 0 && rounds < WARMUP_ROUNDS);
            selection.warmUpAgreement();
        } finally {
            selection.pause(false);
            warming = false;
        }
        warmedUp = true;
    }

    /**
     * The warm-up's message buffer, made before its first call, so that a rank that cannot have it
     * (direct memory short) fails {@code create} with the others instead of leaving them in a call.
     */
    private ByteBuffer warmUpBuffer() {
        return ByteBuffer.allocateDirect(
                CallHeaders.inlineBytes(topology.hostLayout().nodeCount() == 1) + WARMUP_PAST_HEADER_BYTES);
    }

    private void warmUpRound(ByteBuffer buf) throws MpiFailure {
        // Calls past the header's payload among them, so that the branch into the plans is in the
        // profile the top tier compiles from: first taken after it, it traps and the compiled code is
        // thrown away.
        for (int i = 0; i < WARMUP_HEADER_CALLS; i++) {
            bcast(buf, WARMUP_HEADER_BYTES[i % WARMUP_HEADER_BYTES.length], ElementType.BYTE, null, i % size);
            if (i % (WARMUP_HEADER_CALLS / WARMUP_PLAN_CALLS) == 0) {
                bcast(buf, buf.capacity(), ElementType.BYTE, null, i % size);
            }
        }
        for (Plan p : selector.distinctHostPlans()) {
            Plan small = p.withChunk(WARMUP_CHUNK_BYTES, "warm-up");
            for (int i = 0; i < WARMUP_PLAN_CALLS; i++) {
                message.bind(buf, WARMUP_CHUNKS * WARMUP_CHUNK_BYTES, ElementType.BYTE, i % size, rank, size, null);
                try {
                    run(small, ElementType.BYTE);
                } finally {
                    message.clear();
                }
            }
        }
    }

    /**
     * Open MPI's contract for counts costs a header, read on the real node's board by all but the
     * root and the real node's leader.
     */
    private static boolean usesCallBoard(Topology topology, BroadcastSettings settings) throws MpiFailure {
        return settings.counts() == CountRule.ROOT && topology.hostComm().size() > 1;
    }

    private static ShmRingLinks connectRing(Topology topology, BroadcastSettings settings, Selector selector)
            throws MpiFailure {
        return NodeTransports.ring(
                topology.nodeComm(),
                topology.comm().rank(),
                settings.ringSlots(),
                slotBytes(settings, selector.largestHostChunk(IntraNode.RING)));
    }

    private static ShmFanout connectFanout(Topology topology, BroadcastSettings settings, Selector selector)
            throws MpiFailure {
        return NodeTransports.fanout(
                topology.nodeComm(),
                topology.comm().rank(),
                settings.ringSlots(),
                slotBytes(settings, selector.largestHostChunk(IntraNode.FANOUT)));
    }

    private static int slotBytes(BroadcastSettings settings, int largestChunk) {
        return settings.choices().chunkBytes() != 0
                ? settings.choices().chunkBytes()
                : Math.max(MIN_SLOT_BYTES, largestChunk);
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in {@code buf} from {@code root} to every
     * rank: the contract of {@code Intracomm.bcast(Object, int, Datatype, int)}, Open MPI's reading
     * of it included: the root's count governs, a receiver that passed more gets the root's bytes
     * and keeps the rest of its buffer (see {@link CountRule}).
     *
     * @param type the program's datatype, or null for one hbcast does not broadcast
     * @param unsupported where {@code type} is null, the program's datatype as messages name it (the call refuses it)
     * @throws MpiFailure on a bad argument or a mismatch across ranks (a truncation, a different
     *         root: nothing sent, the next call may proceed), a timeout (naming the peer) or a failed peer
     */
    public void bcast(Object buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        requireUsable();
        guard.enter();
        stamp++;
        try {
            waits.call(warming ? 0 : ++calls);
            hostCall(buf, count, type, unsupported, root);
        } catch (RuntimeException | Error e) {
            throw broken(e);
        } finally {
            guard.exit();
        }
    }

    private void hostCall(Object buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        String refused = null;
        try {
            message.bind(buf, count, type, root, rank, size, unsupported);
        } catch (IllegalArgumentException e) {
            refused = "hbcast bcast on rank " + rank + ": " + e.getMessage();
        }
        long start = selection.startOf(message.bytes());
        try {
            if (headers != null) {
                headerCall(refused, root, type, start);
                return;
            }
            if (refused != null) {
                refuse(root);
                throw MpiErrors.badArgument(refused);
            }
            message.adopt(agree(message.bytes(), message.type(), root));
            if (message.bytes() == 0) {
                return;
            }
            run(selection.plan(message.bytes()), type);
            learn(message.bytes(), root, start);
        } finally {
            message.clear();
        }
    }

    /** A host call under the root's count: the root's header decides what every rank moves. */
    private void headerCall(String refused, int root, ElementType type, long start) throws MpiFailure {
        boolean ok = refused == null;
        boolean rootInRange = root >= 0 && root < size;
        // Only the root's wish counts: the others learn from the header whether the message rode in it.
        boolean inline = ok && selection.inlines(message.bytes());
        switch (headers.exchange(
                refused,
                root,
                rootInRange,
                ok ? message.bytes() : 0,
                ok ? message.type() : null,
                ok ? message : null,
                inline)) {
            case ROOT, RECEIVE -> {
                // The root's own bytes for the root; a receiver keeps its buffer past them untouched.
                message.adopt(headers.rootBytes());
                if (message.bytes() > 0 && !headers.inlined()) {
                    run(selection.plan(message.bytes()), type);
                }
                learn(message.bytes(), headers.root(), start);
            }
            case SCRATCH -> {
                // Take part so the others finish, then fail: the data is dropped, as Open MPI drops it.
                long bytes = headers.rootBytes();
                if (bytes > 0 && !headers.inlined()) {
                    scratch = HostCopy.atLeast(scratch, bytes);
                    message.bind(scratch, (int) bytes, ElementType.BYTE, headers.root(), rank, size, null);
                    run(selection.plan(bytes), ElementType.BYTE);
                }
                learn(bytes, headers.root(), start);
                throw ok
                        ? new MpiFailure(headers.problemClass(), headers.problem())
                        : MpiErrors.badArgument(headers.problem());
            }
            case REFUSED ->
                throw headers.problemClass() == MpiErrorClass.ERR_ROOT
                        ? MpiErrors.rootsDisagree(headers.problem())
                        : MpiErrors.badArgument(headers.problem());
            // Messages may be left in flight or a peer may still wait: the instance stops, and says so to all.
            case TIMED_OUT, CONFLICT -> stop(headers.problem(), null);
            default -> throw new IllegalStateException("no such outcome");
        }
    }

    /** Times a finished call for the trials; a failure to agree on a verdict breaks the instance. */
    private void learn(long bytes, int root, long startNs) throws MpiFailure {
        try {
            selection.learn(bytes, root, startNs);
        } catch (MpiFailure e) {
            stop(e.getMessage(), e);
        }
    }

    /** True when calls go through the per-call agreement (several ranks, counts not trusted). */
    private boolean agrees() {
        return size > 1 && settings.counts() != CountRule.TRUSTED;
    }

    /**
     * This rank refused its arguments: under the per-call agreement it still joins it, so the other
     * ranks fail this call too instead of pairing their next call with this one.
     */
    private void refuse(int root) throws MpiFailure {
        if (agrees() && agreement.refuse(root) == CallAgreement.TIMED_OUT) {
            stop(agreement.timeoutMessage(0, root), null);
        }
    }

    /**
     * The bytes this call moves: the root's, agreed by every rank unless the options trust the
     * program to pass the same count everywhere (see {@link CountRule}).
     */
    private long agree(long bytes, ElementType type, int root) throws MpiFailure {
        if (!agrees()) {
            return bytes;
        }
        long agreed = agreement.agree(bytes, type, root, settings.counts());
        if (agreed == CallAgreement.TIMED_OUT) {
            stop(agreement.timeoutMessage(bytes, root), null);
        }
        return agreed;
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in GPU memory from {@code root}: the node's
     * ring copies GPU to GPU over CUDA IPC, node leaders stage through pinned host memory for the
     * network (see {@link DeviceBroadcast}). The root's data must be complete on its device when it
     * calls (synchronize its streams first); on return every rank's buffer holds the message. The
     * first device call sets up the CUDA ring (collective).
     *
     * @param type the program's datatype, or null for one hbcast does not broadcast
     * @param unsupported where {@code type} is null, the program's datatype as messages name it
     * @throws MpiFailure on a bad argument or no CUDA device (nothing sent), a timeout or a failed peer
     */
    public void bcast(DeviceBuffer buf, int count, ElementType type, String unsupported, int root) throws MpiFailure {
        requireUsable();
        guard.enter();
        stamp++;
        try {
            waits.call(++calls);
            deviceCall(buf, count, type, unsupported, root);
        } catch (RuntimeException | Error e) {
            throw broken(e);
        } finally {
            guard.exit();
        }
    }

    private void deviceCall(DeviceBuffer buf, int count, ElementType type, String unsupported, int root)
            throws MpiFailure {
        long checked;
        try {
            checked = DeviceArguments.check(buf, count, type, unsupported, root, rank, size, topology.position());
        } catch (MpiFailure e) {
            refuse(root);
            if (!agrees() && device == null && size > 1) {
                // No per-call agreement tells the others, who are about to set up the node's CUDA ring
                // (collective): join it as a failure, so they fail there too instead of waiting for us.
                try {
                    DeviceNode.refuseConnect(comm, topology, e.getMessage());
                } catch (MpiFailure agreed) {
                    // Expected: the set-up failed everywhere with our reason; ours is the one to report.
                }
            }
            throw e;
        }
        long bytes = agree(checked, type, root);
        if (bytes == 0) {
            return;
        }
        if (device == null) {
            device = DeviceNode.connect(
                    comm, topology, settings.ringSlots(), slotBytes(settings, CudaRingMember.CHUNK_BYTES), waits);
        }
        Plan plan = selector.plan(bytes, MemoryKind.DEVICE);
        try {
            if (plan.algorithm() == Algorithm.NATIVE) {
                device.stagedNative(comm, buf, bytes, root);
            } else {
                driver.runDevice(stamp, plan, buf, bytes, root, device);
            }
        } catch (RuntimeException e) {
            stop("hbcast bcast of device memory on rank " + rank + ": " + e.getMessage(), e);
        } catch (MpiFailure e) {
            stop(e.getMessage(), e);
        }
    }

    /** See {@link InRunSelection#verdict}. */
    public String trialVerdict(long bytes) {
        return selection.verdict(bytes);
    }

    /** CUDA IPC handles this rank has opened so far (0 before the first device call): for tests. */
    public long deviceIpcOpens() {
        return device == null ? 0 : device.ipcOpens();
    }

    /** True while this rank maps a neighbour's device buffer: for tests that no mapping outlives its call. */
    public boolean deviceHoldsUserMapping() {
        return device != null && device.holdsUserMapping();
    }

    /**
     * The plan the next host call of {@code bytes} runs: the one being tried or kept for its size
     * under {@code auto}'s in-run selection, else the selector's. (Where in-run selection let the
     * header carry such messages, the call sends no plan's messages at all.)
     */
    public Plan plan(long bytes) {
        return selection.plan(bytes);
    }

    /** What a host-memory call of {@code bytes} runs and why (see {@link Explanation#text()}). */
    public Explanation explain(long bytes) {
        return selector.explain(bytes, MemoryKind.HOST);
    }

    public Explanation explain(long bytes, MemoryKind memory) {
        return selector.explain(bytes, memory);
    }

    /** The hardware fingerprint of this run, as agreed by all ranks. */
    public Fingerprint fingerprint() {
        return selector.inputs().fingerprint();
    }

    public Topology topology() {
        return topology;
    }

    private void run(Plan plan, ElementType type) throws MpiFailure {
        if (plan.algorithm() == Algorithm.NATIVE) {
            comm.bcast(message.buffer(), message.count(), type.basicType(), message.root());
            return;
        }
        long bytes = message.bytes();
        int root = message.root();
        Buffer data;
        if (message.isArray()) {
            arrayCopy = HostCopy.atLeast(arrayCopy, bytes);
            data = arrayCopy;
            if (rank == root) {
                HostCopy.arrayToMemory(message.buffer(), HostCopy.address(arrayCopy), bytes);
            }
        } else {
            data = (Buffer) message.buffer();
        }
        try {
            driver.runHost(stamp, plan, data, message.isArray() ? 1 : message.entryBytes(), bytes, root);
        } catch (MpiFailure e) {
            stop(e.getMessage(), e);
        }
        if (message.isArray() && rank != root) {
            HostCopy.memoryToArray(HostCopy.address(arrayCopy), message.buffer(), bytes);
        }
    }

    /**
     * Anything but an {@code MpiFailure} out of a call (an {@code OutOfMemoryError} making scratch
     * memory, a bug) may have left this rank out of the plan its peers run, so its next call could
     * take their messages for its own: the instance stops here, its node's peers learn it from the
     * aborted ring and fan-out, and every other rank from this rank's notice. An {@code Error} is
     * rethrown as it is, after the instance is marked.
     */
    private MpiFailure broken(Throwable e) {
        brokenBy = "hbcast bcast on rank " + rank + ": " + e;
        tellUnlessTold(e);
        // The node's transports are sticky-aborted on this rank's behalf: a neighbour waiting for it now, or
        // using them in a later call, fails at once naming this rank, instead of taking part in a half call.
        if (ring != null) {
            ring.inbox().abort(ring.position());
            ring.outbox().abort(ring.position());
        }
        if (fanout != null) {
            fanout.abort(fanout.position());
        }
        if (e instanceof Error error) {
            throw error;
        }
        return MpiErrors.failed(brokenBy, e);
    }

    /**
     * A call failed part way (a peer's chunk of another call, an aborted ring, a time-out given up on,
     * roots that disagree with messages in flight): the instance stops, and every other rank hears
     * it, so none waits for this rank.
     */
    private void stop(String why, Exception cause) throws MpiFailure {
        brokenBy = why;
        tellUnlessTold(cause);
        throw MpiErrors.failed(why, cause);
    }

    /**
     * Sends this rank's notice unless {@code cause} is one the others hear already: a peer's notice,
     * or a node peer's abort of the ring or fan-out (that peer sent its own). One notice per failure,
     * not one per rank that learns of it.
     */
    private void tellUnlessTold(Throwable cause) {
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof StopNotices.PeerStopped) {
                return;
            }
            if (c instanceof RingAbortedException aborted && aborted.originRank() != topology.position()) {
                return;
            }
        }
        notices.tellAll(calls, brokenBy);
    }

    private void requireUsable() throws MpiFailure {
        if (closed) {
            throw MpiErrors.failed("hbcast: this HierarchicalBcast is closed");
        }
        if (brokenBy != null) {
            throw MpiErrors.failed("hbcast: unusable after an earlier failure: " + brokenBy);
        }
    }

    /** Frees the ring's shared memory and the communicators. Collective; idempotent. */
    @Override
    public void close() throws MpiFailure {
        if (closed) {
            return;
        }
        // A call still running on another thread would use the segments unmapped below.
        guard.enter();
        closed = true;
        guard.exit();
        if (rank == 0) {
            selection.keepLearnt();
        }
        release();
    }

    /** Frees what the instance holds, once: its transports, its topology's communicators and its own. */
    private void release() {
        closed = true;
        try {
            driver.close();
        } catch (RuntimeException ignored) {
            // Tearing down: what is left is released below either way.
        }
        closeQuietly(topology, refusals, device, board, fanout, ring);
        notices.drain();
        freeQuietly(comm);
    }

    /**
     * Frees a communicator of the library's; a failure to free is moot when tearing down. Under the
     * bindings' default error handler a free of a communicator already freed would abort the job, so
     * each is freed on one path only.
     */
    private static void freeQuietly(MpiComm c) {
        try {
            c.free();
        } catch (MpiFailure ignored) {
            // Nothing the caller could do about it.
        }
    }

    /** The settings in force, by variable name, as agreed at create (rank 0's). */
    public Map<String, String> settings() {
        return agreed;
    }

    /** Closes what exists of {@code resources}, then the topology; failures are moot when tearing down. */
    private static void closeQuietly(Topology topology, AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception ignored) {
                // Unmapping cannot fail in a way the caller could act on.
            }
        }
        try {
            if (topology != null) {
                topology.close();
            }
        } catch (MpiFailure ignored) {
            // The communicator is gone either way.
        }
    }
}
