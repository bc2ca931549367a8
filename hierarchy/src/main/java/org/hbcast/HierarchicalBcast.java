package org.hbcast;

import java.io.IOException;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.gpu.cuda.DeviceBuffer;
import org.hbcast.gpu.shm.CallBoard;
import org.hbcast.gpu.shm.ShmFanout;
import org.hbcast.mpi.HeaderRelay;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.Topology;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.LearntPlans;
import org.hbcast.tuning.MemoryKind;

/**
 * A drop-in replacement for {@code Intracomm.bcast} that knows the cluster's nodes: a k-nomial tree
 * among node leaders, a pipelined shared-memory ring or a node-wide fan-out segment inside each node,
 * both levels pipelined over the same chunks, with the algorithm, transport and chunk size chosen per
 * call.
 *
 * <pre>{@code
 * try (HierarchicalBcast hb = HierarchicalBcast.create(MPI.COMM_WORLD)) {   // collective
 *     hb.bcast(field, field.length, MPI.DOUBLE, 0);                          // as comm.bcast
 * }
 * }</pre>
 *
 * <p>Buffers are Java primitive arrays or direct {@code java.nio} buffers (used from their address
 * on, ignoring position, as the bindings do). Arguments are checked before anything is sent; a peer
 * that stops answering makes the call fail after the timeout with a message naming it; after such a
 * failure the instance refuses further calls. One call at a time per instance, like MPI collectives
 * on one communicator; instances on different communicators may be called from different threads
 * at once when MPI provides {@code THREAD_MULTIPLE}, and otherwise such a call is refused with a
 * message saying so.
 */
public final class HierarchicalBcast implements AutoCloseable {
    /** Smallest ring slot, so that explicit plans of small chunks still have room. */
    private static final int MIN_SLOT_BYTES = 64 << 10;
    /** Warm-up calls through the header path, each rank the root in turn. */
    static final int WARMUP_HEADER_CALLS = 256;
    /** Warm-up calls of each plan, of {@link #WARMUP_CHUNKS} chunks of {@link #WARMUP_CHUNK_BYTES}. */
    static final int WARMUP_PLAN_CALLS = 64;
    static final int WARMUP_CHUNKS = 4;
    static final int WARMUP_CHUNK_BYTES = 4096;
    private static final boolean LOG_TRIALS = "1".equals(System.getenv("HBCAST_TRIALS_LOG"));
    /** Whether this JVM has run a warm-up: the JIT's work is per process, not per instance. */
    private static volatile boolean warmedUp;

    private final Intracomm comm;
    private final Topology topology;
    private final NodeLayout layout;
    private final BcastOptions options;
    private final Selector selector;
    /** The node's ring, made only when some host plan moves chunks through it (null on one-rank nodes). */
    private final NodeRing ring;
    /** The node's fan-out segment, made only when some host plan moves chunks through it. */
    private final ShmFanout fanout;
    private final PlanDriver driver;
    private final int rank;
    private final int size;
    private final Message message = new Message();
    private final CallAgreement agreement;
    private final ThreadGuard guard;
    /** The node's board of call headers, on a node of several ranks when the root's count governs (else null). */
    private final CallBoard board;
    /** The call headers, when the root's count governs (see {@link CountRule#ROOT}; else null). */
    private final CallHeaders headers;
    /** In-run selection of {@code auto}: which plan each call runs while a size class is tried, and the verdicts. */
    private final TrialSchedule trials;
    private final TimedCollectives trialSync;
    private final long[] trialTimes = new long[TrialSchedule.MAX_OPTIONS];
    /** Direct memory that array messages are copied through: the transports move direct memory only. */
    private ByteBuffer arrayCopy;
    /** Where a rank that cannot take the root's bytes receives them, to drop them (made on first need). */
    private ByteBuffer scratch;
    private DeviceNode device;
    private String brokenBy;
    private boolean closed;

    private HierarchicalBcast(Intracomm comm, Topology topology, BcastOptions options, Selector selector,
            NodeRing ring, ShmFanout fanout, CallBoard board) throws MPIException {
        this.comm = comm;
        this.topology = topology;
        this.layout = topology.layout();
        this.options = options;
        this.ring = ring;
        this.fanout = fanout;
        this.rank = comm.getRank();
        this.size = comm.getSize();
        this.selector = selector;
        this.driver = new PlanDriver(comm, topology, options.timeout().toNanos(), ring, fanout);
        this.agreement = new CallAgreement(comm, rank, options.timeout().toNanos());
        this.guard = new ThreadGuard(MPI.queryThread(), rank);
        this.board = board;
        this.headers = options.counts() != CountRule.ROOT || size == 1 ? null
                : new CallHeaders(board, layout.nodeCount() == 1 ? null
                        : new HeaderRelay(comm, CallHeaders.HEADER_RADIX, layout.nodeCount(), CallBoard.INLINE_BYTES),
                        layout, rank, topology.node(), topology.position(), options.algorithm() == Algorithm.AUTO,
                        options.timeout().toNanos());
        this.trials = trialSchedule(selector, headers != null && options.algorithm() == Algorithm.AUTO);
        this.trialSync = new TimedCollectives(comm, TrialSchedule.MAX_OPTIONS, options.timeout().toNanos());
    }

    /**
     * What {@code auto} tries in the run: per size class the selector's candidate plans, and the
     * header itself where it may carry the message. Classes whose messages fit in the header's first
     * network message ({@link HeaderRelay#FIRST_PAYLOAD}) ride in it untried: one message per edge
     * is as little as a broadcast sends. Where an earlier run decided a class, its choice takes the
     * model's place as the incumbent (the trials still run, and must beat it by the margin).
     */
    private static TrialSchedule trialSchedule(Selector selector, boolean inlineAllowed) {
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        boolean[] inline = new boolean[TrialSchedule.CLASSES];
        int[] incumbent = new int[TrialSchedule.CLASSES];
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            long largest = 1L << c;
            boolean fits = inlineAllowed && largest <= CallBoard.INLINE_BYTES;
            plans[c] = fits && largest <= HeaderRelay.FIRST_PAYLOAD ? new Plan[0] : selector.trialPlans(c);
            inline[c] = fits && plans[c].length > 0;
            // Without trials the header carries what fits, the selector's plan the rest; the class's
            // largest size, a power of two, is the size programs use most.
            Plan chosen = selector.plan(1L << c);
            for (int p = 0; p < plans[c].length && !inline[c]; p++) {
                if (plans[c][p].algorithm() == chosen.algorithm() && plans[c][p].intra() == chosen.intra()) {
                    incumbent[c] = p;
                }
            }
        }
        TrialSchedule schedule = new TrialSchedule(plans, inline, incumbent);
        LearntPlans learnt = selector.inputs().learnt();
        if (learnt != null) {
            for (LearntPlans.Verdict v : learnt.verdicts()) {
                for (int o = 0; o < schedule.options(v.sizeClass()); o++) {
                    if (schedule.label(v.sizeClass(), o).equals(v.choice())) {
                        schedule.adopt(v.sizeClass(), o);
                    }
                }
            }
        }
        return schedule;
    }

    /** {@link #create(Intracomm, BcastOptions)} with the options of the environment. Collective. */
    public static HierarchicalBcast create(Intracomm comm) throws MPIException {
        BcastOptions options;
        try {
            options = BcastOptions.defaults();
        } catch (IllegalArgumentException e) {
            throw new MPIException("hbcast: " + e.getMessage());
        }
        return create(comm, options);
    }

    /**
     * Sets up the broadcast on {@code comm} (collective over it): duplicates the communicator,
     * discovers the nodes, agrees on the selector's inputs (fingerprint, tuning table, calibration:
     * see {@link TuningAgreement}) and connects the node's shared-memory ring and fan-out segment,
     * each only where a plan uses it, with slots as large as the largest chunk planned for it.
     */
    public static HierarchicalBcast create(Intracomm comm, BcastOptions options) throws MPIException {
        Intracomm dup = comm.dup();
        Topology topology = null;
        NodeRing ring = null;
        ShmFanout fanout = null;
        CallBoard board = null;
        try {
            try {
                topology = Topology.discover(dup, options.nodeSizes());
            } catch (IllegalArgumentException e) {
                throw new MPIException("hbcast: " + e.getMessage());
            }
            boolean warmUp = agreeAtCreate(dup, options, !warmedUp);
            Selector selector = new Selector(options, ClusterShape.of(topology.layout(), topology.isVirtual()),
                    options.chunkBytes() != 0 ? options.chunkBytes() : Selector.AUTO_MAX_CHUNK_BYTES,
                    TuningAgreement.agree(dup, options, topology, System.getenv()));
            if (topology.nodeComm().getSize() > 1) {
                // Every rank made the same plans from the same agreed inputs, so all of a node agree on what to connect.
                if (selector.connects(IntraNode.RING)) {
                    ring = connectRing(topology, options, selector);
                }
                if (selector.connects(IntraNode.FANOUT)) {
                    fanout = connectFanout(topology, options, selector);
                }
            }
            if (usesCallBoard(topology, options)) {
                board = NodeSegments.board(topology.nodeComm());
            }
            HierarchicalBcast hb = new HierarchicalBcast(dup, topology, options, selector, ring, fanout, board);
            if (warmUp) {
                try {
                    hb.warmUp();
                } catch (MPIException | RuntimeException e) {
                    hb.close();
                    throw e;
                }
            }
            return hb;
        } catch (MPIException | RuntimeException e) {
            closeQuietly(topology, board, fanout, ring);
            dup.free();
            throw e;
        }
    }

    /**
     * Every rank must run the same rule for counts ({@code HBCAST_COUNTS} is read from each rank's
     * environment): one rank on the board and another not would wait for each other forever. The
     * same holds for in-run selection ({@code HBCAST_TRIALS}): ranks that try plans and ranks that do
     * not would run different plans in one call. The same reduction tells whether any rank's JVM still
     * needs the warm-up (then all run it).
     */
    private static boolean agreeAtCreate(Intracomm comm, BcastOptions options, boolean cold) throws MPIException {
        CountRule rule = options.counts();
        int tries = options.trials() ? 1 : 0;
        int[] range = {rule.ordinal(), -rule.ordinal(), cold ? 1 : 0, tries, -tries};
        comm.allReduce(range, range.length, MPI.INT, MPI.MAX);
        if (range[3] != -range[4]) {
            throw new MPIException("hbcast: ranks disagree on HBCAST_TRIALS: this rank has " + (tries == 1 ? "1" : "0")
                    + ", another has " + (tries == 1 ? "0" : "1") + "; set it alike on every rank");
        }
        if (range[0] != -range[1]) {
            throw new MPIException("hbcast: ranks disagree on HBCAST_COUNTS: this rank has " + rule + ", another has "
                    + CountRule.values()[range[0] == rule.ordinal() ? -range[1] : range[0]]
                    + "; set it alike on every rank");
        }
        return range[2] != 0 && comm.getSize() > 1;
    }

    /**
     * Runs the hot paths a few hundred times on a small message, so that the JIT has compiled them
     * before the program's first calls: without it a program's first thousand calls run interpreted
     * and lose to Open MPI. Collective and bounded: {@link #WARMUP_HEADER_CALLS} calls through the
     * full call path with a message that rides in its header, {@link #WARMUP_PLAN_CALLS} with one
     * past it, then as many of each plan the selector may choose, on a few small chunks.
     * Each rank is the root in turn, so every role is compiled. Once per JVM (see {@link #create}).
     */
    private void warmUp() throws MPIException {
        // A cold JIT's times would mislead the trials; the program's own calls decide.
        trials.pause(true);
        try {
            warmUpCalls();
        } finally {
            trials.pause(false);
        }
        warmedUp = true;
    }

    private void warmUpCalls() throws MPIException {
        ByteBuffer buf = ByteBuffer.allocateDirect(CallBoard.INLINE_BYTES + WARMUP_CHUNKS * WARMUP_CHUNK_BYTES);
        for (int i = 0; i < WARMUP_HEADER_CALLS; i++) {
            bcast(buf, 64, MPI.BYTE, i % size);
        }
        // Past the header's payload too, so that the branch into the plans is compiled, not trapped.
        for (int i = 0; i < WARMUP_PLAN_CALLS; i++) {
            bcast(buf, buf.capacity(), MPI.BYTE, i % size);
        }
        for (Plan p : selector.distinctHostPlans()) {
            Plan small = new Plan(p.algorithm(), WARMUP_CHUNK_BYTES, p.radix(), p.intra(), "warm-up");
            for (int i = 0; i < WARMUP_PLAN_CALLS; i++) {
                message.bind(buf, buf.capacity(), ElementType.BYTE, i % size, rank, size, null);
                try {
                    run(small, MPI.BYTE);
                } finally {
                    message.clear();
                }
            }
        }
    }

    /** Open MPI's contract for counts costs a header, read on the node's board by all but the root and leader. */
    private static boolean usesCallBoard(Topology topology, BcastOptions options) throws MPIException {
        return options.counts() == CountRule.ROOT && topology.nodeComm().getSize() > 1;
    }

    private static NodeRing connectRing(Topology topology, BcastOptions options, Selector selector) throws MPIException {
        return NodeRing.connect(topology.nodeComm(), options.ringSlots(),
                slotBytes(options, selector.largestHostChunk(IntraNode.RING)));
    }

    private static ShmFanout connectFanout(Topology topology, BcastOptions options, Selector selector)
            throws MPIException {
        return NodeSegments.fanout(topology.nodeComm(), options.ringSlots(),
                slotBytes(options, selector.largestHostChunk(IntraNode.FANOUT)));
    }

    private static int slotBytes(BcastOptions options, int largestChunk) {
        return options.chunkBytes() != 0 ? options.chunkBytes() : Math.max(MIN_SLOT_BYTES, largestChunk);
    }

    /**
     * Broadcasts {@code count} elements of {@code type} in {@code buf} from {@code root} to every
     * rank: the contract of {@code Intracomm.bcast(Object, int, Datatype, int)}, Open MPI's reading
     * of it included: the root's count governs, a receiver that passed more gets the root's bytes
     * and keeps the rest of its buffer (see {@link CountRule} and {@link BcastOptions#counts()}).
     *
     * @throws MPIException on a bad argument or a mismatch across ranks (a truncation, a different
     *         root: nothing sent, the next call may proceed), a timeout (naming the peer) or a failed peer
     */
    public void bcast(Object buf, int count, Datatype type, int root) throws MPIException {
        requireUsable();
        guard.enter();
        try {
            hostCall(buf, count, type, root);
        } finally {
            guard.exit();
        }
    }

    private void hostCall(Object buf, int count, Datatype type, int root) throws MPIException {
        long start = System.nanoTime();
        ElementType element = ElementType.of(type);
        String refused = null;
        try {
            message.bind(buf, count, element, root, rank, size,
                    element == null ? ElementType.describeUnsupported(type) : null);
        } catch (IllegalArgumentException e) {
            refused = "hbcast bcast on rank " + rank + ": " + e.getMessage();
        }
        try {
            if (headers != null) {
                headerCall(refused, root, type, start);
                return;
            }
            if (refused != null) {
                refuse(root);
                throw new MPIException(refused);
            }
            message.adopt(agree(message.bytes(), message.type(), root));
            if (message.bytes() == 0) {
                return;
            }
            run(planOf(message.bytes()), type);
            learn(message.bytes(), start);
        } finally {
            message.clear();
        }
    }

    /** The plan of a call of {@code bytes} (the root's): the one being tried or kept for its size, else the selector's. */
    private Plan planOf(long bytes) {
        return trials.plan(TrialSchedule.sizeClass(bytes), selector.plan(bytes));
    }

    /**
     * Notes this rank's time of a finished call for the trials; after each block of trial calls
     * every rank meets, after a size's last block every rank (all reach it at the same call) agrees
     * on the slowest rank's time of each option and keeps the fastest.
     */
    private void learn(long bytes, long startNs) throws MPIException {
        int c = TrialSchedule.sizeClass(bytes);
        int next = trials.record(c, System.nanoTime() - startNs);
        if (next == TrialSchedule.GO_ON) {
            return;
        }
        if (next == TrialSchedule.BLOCK_ENDED) {
            // The next block starts together on every rank: a slow option's stragglers are not timed in the next.
            together();
            return;
        }
        trials.summarize(c, trialTimes);
        if (!trialSync.reduce(trialTimes, trials.options(c))) {
            fail("hbcast bcast on rank " + rank + " timed out after " + options.timeout().toMillis() / 1000.0
                    + " s agreeing on the fastest plan for messages of " + bytes + " bytes: some rank did not join");
        }
        trials.decide(c, trialTimes);
        if (LOG_TRIALS && rank == 0) {
            logVerdict(c);
        }
    }

    private void together() throws MPIException {
        if (!trialSync.barrier()) {
            fail("hbcast bcast on rank " + rank + " timed out after " + options.timeout().toMillis() / 1000.0
                    + " s in the barrier between timed trial calls: some rank did not join");
        }
    }

    /** {@code HBCAST_TRIALS_LOG=1}: rank 0 prints each verdict of the trials (rare: once per size, then re-checks). */
    private void logVerdict(int c) {
        StringBuilder sb = new StringBuilder("hbcast: trials for messages of ").append(TrialSchedule.smallest(c))
                .append("..").append(1L << c).append(" B kept ").append(trials.label(c, trials.winner(c)))
                .append(" (per option, the slowest rank's fastest block of ").append(TrialSchedule.BLOCK).append(" calls, us:");
        for (int o = 0; o < trials.options(c); o++) {
            sb.append(' ').append(trials.label(c, o)).append(' ').append(trialTimes[o] / 1000.0);
        }
        System.err.println(sb.append(')'));
    }

    /** A host call under the root's count: the root's header decides what every rank moves. */
    private void headerCall(String refused, int root, Datatype type, long start) throws MPIException {
        boolean ok = refused == null;
        boolean rootInRange = root >= 0 && root < size;
        // Only the root's wish counts: the others learn from the header whether the message rode in it.
        boolean inline = ok && trials.inlines(message.bytes());
        switch (headers.exchange(refused, root, rootInRange, ok ? message.bytes() : 0, ok ? message.type() : null,
                ok ? message : null, inline)) {
            case ROOT, RECEIVE -> {
                // The root's own bytes for the root; a receiver keeps its buffer past them untouched.
                message.adopt(headers.rootBytes());
                if (message.bytes() > 0 && !headers.inlined()) {
                    run(planOf(message.bytes()), type);
                }
                learn(message.bytes(), start);
            }
            case SCRATCH -> {
                // Take part so the others finish, then fail: the data is dropped, as Open MPI drops it.
                long bytes = headers.rootBytes();
                if (bytes > 0 && !headers.inlined()) {
                    scratch = HostCopy.atLeast(scratch, bytes);
                    message.bind(scratch, (int) bytes, ElementType.BYTE, headers.root(), rank, size, null);
                    run(planOf(bytes), MPI.BYTE);
                }
                learn(bytes, start);
                throw new MPIException(headers.problem());
            }
            case REFUSED -> throw new MPIException(headers.problem());
            case TIMED_OUT, CONFLICT -> fail(headers.problem());
            default -> throw new IllegalStateException("no such outcome");
        }
    }

    /** True when calls go through the per-call agreement (several ranks, counts not trusted). */
    private boolean agrees() {
        return size > 1 && options.counts() != CountRule.TRUSTED;
    }

    /**
     * This rank refused its arguments: under the per-call agreement it still joins it, so the other
     * ranks fail this call too instead of pairing their next call with this one.
     */
    private void refuse(int root) throws MPIException {
        if (agrees() && agreement.refuse(root) == CallAgreement.TIMED_OUT) {
            fail(agreement.timeoutMessage(0, root));
        }
    }

    /**
     * The bytes this call moves: the root's, agreed by every rank unless the options trust the
     * program to pass the same count everywhere (see {@link CountRule}).
     */
    private long agree(long bytes, ElementType type, int root) throws MPIException {
        if (!agrees()) {
            return bytes;
        }
        long agreed = agreement.agree(bytes, type, root, options.counts());
        if (agreed == CallAgreement.TIMED_OUT) {
            fail(agreement.timeoutMessage(bytes, root));
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
     * @throws MPIException on a bad argument or no CUDA device (nothing sent), a timeout or a failed peer
     */
    public void bcast(DeviceBuffer buf, int count, Datatype type, int root) throws MPIException {
        requireUsable();
        guard.enter();
        try {
            deviceCall(buf, count, type, root);
        } finally {
            guard.exit();
        }
    }

    private void deviceCall(DeviceBuffer buf, int count, Datatype type, int root) throws MPIException {
        long checked;
        try {
            checked = DeviceArguments.check(buf, count, type, root, rank, size, topology.position());
        } catch (MPIException e) {
            refuse(root);
            throw e;
        }
        long bytes = agree(checked, ElementType.of(type), root);
        if (bytes == 0) {
            return;
        }
        if (device == null) {
            device = DeviceNode.connect(comm, topology, options, slotBytes(options, selector.largestChunk()));
        }
        Plan plan = selector.plan(bytes, MemoryKind.DEVICE);
        try {
            if (plan.algorithm() == Algorithm.NATIVE) {
                device.stagedNative(comm, buf, bytes, root);
            } else {
                driver.runDevice(plan, buf, bytes, root, device);
            }
        } catch (RuntimeException e) {
            fail("hbcast bcast of device memory on rank " + rank + ": " + e.getMessage());
        } catch (MPIException e) {
            fail(e.getMessage());
        }
    }

    /**
     * What {@code auto}'s in-run selection keeps for host calls of {@code bytes}: {@code inline} or a
     * plan's label; null while it still tries, {@code -} where the size is not tried. For tests and tools.
     */
    String trialVerdict(long bytes) {
        int c = TrialSchedule.sizeClass(bytes);
        if (!trials.tries(c)) {
            return "-";
        }
        int o = trials.winner(c);
        return o < 0 ? null : trials.label(c, o);
    }

    /** CUDA IPC handles this rank has opened so far (0 before the first device call): for tests of the cache. */
    long deviceIpcOpens() {
        return device == null ? 0 : device.ipcOpens();
    }

    /**
     * The plan the next host call of {@code bytes} runs: the one being tried or kept for its size
     * under {@code auto}'s in-run selection, else the selector's. (Where in-run selection let the
     * header carry such messages, the call sends no plan's messages at all.)
     */
    public Plan plan(long bytes) {
        return planOf(bytes);
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

    public BcastOptions options() {
        return options;
    }

    private void run(Plan plan, Datatype type) throws MPIException {
        if (plan.algorithm() == Algorithm.NATIVE) {
            comm.bcast(message.buffer(), message.count(), type, message.root());
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
            driver.runHost(plan, data, message.isArray() ? 1 : message.entryBytes(), bytes, root);
        } catch (MPIException e) {
            fail(e.getMessage());
        }
        if (message.isArray() && rank != root) {
            HostCopy.memoryToArray(HostCopy.address(arrayCopy), message.buffer(), bytes);
        }
    }

    private void fail(String why) throws MPIException {
        brokenBy = why;
        throw new MPIException(why);
    }

    private void requireUsable() throws MPIException {
        if (closed) {
            throw new MPIException("hbcast: this HierarchicalBcast is closed");
        }
        if (brokenBy != null) {
            throw new MPIException("hbcast: unusable after an earlier failure: " + brokenBy);
        }
    }

    /** Frees the ring's shared memory and the communicators. Collective; idempotent. */
    @Override
    public void close() throws MPIException {
        if (closed) {
            return;
        }
        // A call still running on another thread would use the segments unmapped below.
        guard.enter();
        closed = true;
        guard.exit();
        if (rank == 0) {
            keepLearnt();
        }
        closeQuietly(topology, device, board, fanout, ring);
        comm.free();
    }

    /** What an earlier run learnt for class {@code c}, or null where it decided nothing. */
    private static LearntPlans.Verdict earlierVerdict(LearntPlans earlier, int c) {
        if (earlier == null) {
            return null;
        }
        for (LearntPlans.Verdict v : earlier.verdicts()) {
            if (v.sizeClass() == c) {
                return v;
            }
        }
        return null;
    }

    /**
     * Rank 0 writes what this run's trials decided (with what earlier runs decided and this one did
     * not revisit) for the next run on this fingerprint. A cache that cannot be written costs only
     * the next run's trials: a warning, no failure.
     */
    private void keepLearnt() {
        Path file = selector.inputs().learntFile();
        if (file == null) {
            return;
        }
        LearntPlans earlier = selector.inputs().learnt();
        List<LearntPlans.Verdict> verdicts = new ArrayList<>();
        boolean fresh = false;
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            // What the trials last kept, also while a re-check runs as the instance closes.
            int o = trials.settled(c);
            long nanos = trials.agreedNanos(c);
            LearntPlans.Verdict before = earlierVerdict(earlier, c);
            if (o >= 0 && nanos >= 0) {
                fresh = true;
                verdicts.add(new LearntPlans.Verdict(c, trials.label(c, o), nanos / 1e9));
            } else if (before != null) {
                // Not decided by this run: the earlier lesson stands.
                verdicts.add(before);
            }
        }
        if (!fresh) {
            return;
        }
        try {
            new LearntPlans(LearntPlans.FORMAT_VERSION, selector.inputs().fingerprint().id(), Instant.now().toString(),
                    verdicts).write(file);
        } catch (IOException | RuntimeException e) {
            System.err.println("hbcast: warning: cannot keep what this run learnt in " + file + " (" + e
                    + "); the next run tries the plans again");
        }
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
        } catch (MPIException ignored) {
            // The communicator is gone either way.
        }
    }
}
