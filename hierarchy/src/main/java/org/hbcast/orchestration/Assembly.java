package org.hbcast.orchestration;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import org.hbcast.call.CallAgreement;
import org.hbcast.call.CountRule;
import org.hbcast.call.ElementType;
import org.hbcast.call.ThreadGuard;
import org.hbcast.header.CallHeaders;
import org.hbcast.header.HeaderRelay;
import org.hbcast.header.PayloadTree;
import org.hbcast.header.RootRefusals;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.StopNotices;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ThreadLevel;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.Plan;
import org.hbcast.select.InRunSelection;
import org.hbcast.select.Selector;
import org.hbcast.select.TuningAgreement;
import org.hbcast.settings.Log;
import org.hbcast.settings.Setting;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.NodeTransport;
import org.hbcast.transport.shm.CallBoard;
import org.hbcast.transport.shm.CallBoardTransport;
import org.hbcast.transport.shm.SharedSegment;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmFanoutTransport;
import org.hbcast.transport.shm.ShmRingLinks;
import org.hbcast.transport.shm.ShmRingTransport;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;

/**
 * Makes a {@link Broadcaster} at {@code create}: the communicator, the agreed settings, the
 * topology, the selector's agreed inputs, the node's transports, the instance's parts wired
 * together, the warm-up, each step failing on every rank together, and everything made so far
 * released once when one fails.
 */
final class Assembly {
    /** Smallest ring slot, so that explicit plans of small chunks still have room. */
    private static final int MIN_SLOT_BYTES = 64 << 10;

    private static final Path DIRECTORY = SharedSegment.DEFAULT_DIRECTORY;

    /** The instance's own communicator: a duplicate of the program's. */
    private final MpiComm comm;

    private BroadcastSettings settings;
    private Topology topology;
    private Selector selector;
    private ShmRingLinks ring;
    private ShmFanout fanout;
    private CallBoard board;
    private CallNumbers numbers;
    private InRunSelection selection;
    private HostCall host;
    private Broadcaster made;
    /** Parts of {@link #wire} that hold MPI requests, kept as made so that a failure later in it frees them. */
    private PlanDriver driver;

    private RootRefusals refusals;
    /** The tree of the hosts' leaders that large header payloads take ({@link PayloadTree#NONE} for none). */
    private PayloadTree payloadTree = PayloadTree.NONE;
    /**
     * When the program's call to {@code create} began, for the warm-up's budget ({@link
     * JitWarmUp#limitNs}): before the communicator's duplicate and the settings' parsing, which take
     * 50-100 ms of a cold JVM's first create on one node x 4.
     */
    private final long startNs;
    /** When the warm-up began (or would have), for create's info line. */
    private long warmUpStartNs;

    private Assembly(MpiComm comm, long startNs) {
        this.comm = comm;
        this.startNs = startNs;
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
     * @param startNs when the program's call to create began ({@link System#nanoTime})
     */
    static Broadcaster create(
            MpiComm comm,
            SettingsProposal proposal,
            Function<Map<String, String>, BroadcastSettings> toSettings,
            long startNs)
            throws MpiFailure {
        Assembly assembly = new Assembly(MpiErrors.returnErrors(comm.dup()), startNs);
        try {
            return assembly.assemble(proposal, toSettings);
        } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
            assembly.release();
            throw e;
        }
    }

    private Broadcaster assemble(SettingsProposal proposal, Function<Map<String, String>, BroadcastSettings> toSettings)
            throws MpiFailure {
        Map<String, String> agreed = SettingsAgreement.agree(comm, proposal);
        settings = toSettings.apply(agreed);
        try {
            topology = Topology.discover(comm, settings.nodeSizes());
        } catch (IllegalArgumentException e) {
            // The node sizes are rank 0's on every rank: all of them refuse them alike.
            throw MpiErrors.badArgument("hbcast: " + e.getMessage());
        }
        boolean warmUp = JitWarmUp.neededSomewhere(comm);
        selector = Selector.of(
                settings.choices(),
                ClusterShape.of(topology.layout(), topology.isVirtual()),
                settings.choices().chunkBytes() != 0 ? settings.choices().chunkBytes() : Selector.AUTO_MAX_CHUNK_BYTES,
                TuningAgreement.agree(
                        comm, settings.tuningFile(), settings.keepsLearnt(), topology, Setting.environment()));
        // Every rank made the same plans from the same agreed inputs, so all of a node agree on what to
        // connect; a node that fails makes every node fail, not only its own ranks.
        String failure = null;
        try {
            ring = planned(
                    IntraNode.RING,
                    (position, nodeSize, slots, slotBytes) ->
                            new ShmRingTransport(DIRECTORY, position, slots, slotBytes));
            fanout = planned(
                    IntraNode.FANOUT,
                    (position, nodeSize, slots, slotBytes) ->
                            new ShmFanoutTransport(DIRECTORY, position, nodeSize, slots, slotBytes));
        } catch (MpiFailure | RuntimeException e) {
            failure = e.getMessage();
        }
        CreateTogether.check(comm, failure);
        try {
            // Open MPI's contract for counts costs a header, read on the real node's board by all but the
            // root and the real node's leader.
            MpiComm hostComm = topology.hostComm();
            if (settings.counts() == CountRule.ROOT && hostComm.size() > 1) {
                board = NodeHandshake.connect(
                        hostComm,
                        hostComm,
                        comm.rank(),
                        new CallBoardTransport(DIRECTORY, hostComm.rank(), hostComm.size()));
            }
        } catch (MpiFailure | RuntimeException e) {
            failure = e.getMessage();
        }
        CreateTogether.check(comm, failure);
        ByteBuffer warmUpBuffer = null;
        try {
            made = wire(agreed);
            warmUpBuffer = warmUp ? JitWarmUp.buffer(selector.headerBytes()) : null;
        } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
            failure = "cannot set up its calls on rank " + comm.rank() + ": " + e;
        }
        CreateTogether.check(comm, failure);
        warmUpStartNs = System.nanoTime();
        if (warmUp) {
            try {
                warmUp(warmUpBuffer);
            } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
                // Past its first call a rank that fails may leave the others waiting in one; nothing in
                // the warm-up fails on one rank alone once the settings are agreed and its memory is made.
                failure = "the warm-up failed on rank " + comm.rank() + ": " + e;
            }
            CreateTogether.check(comm, failure);
        }
        if (topology.hostLayout().nodeCount() > 1) {
            try {
                trials();
            } catch (MpiFailure | RuntimeException | OutOfMemoryError e) {
                failure = "the trials at create failed on rank " + comm.rank() + ": " + e;
            }
            CreateTogether.check(comm, failure);
        }
        host.resetBreakdown();
        if (comm.rank() == 0) {
            CreateLine.log(comm, topology, settings, selection::plan, payloadTree);
            long beforeMs = (warmUpStartNs - startNs) / 1_000_000;
            long allMs = (System.nanoTime() - startNs) / 1_000_000;
            Log.info(() -> "hbcast: create took " + allMs + " ms, " + beforeMs + " ms of it before the warm-up");
        }
        if (settings.progressThread()) {
            made.startProgressThread();
        }
        return made;
    }

    /** A node transport of slots, at a rank's place in the node. */
    private interface Slotted<T extends AutoCloseable> {
        NodeTransport<?, T> at(int position, int nodeSize, int slots, int slotBytes);
    }

    /**
     * The node's transport for {@code kind}'s plans, connected where the node has peers and some plan
     * uses it (else null), with slots as large as the largest chunk planned for it.
     */
    private <T extends AutoCloseable> T planned(IntraNode kind, Slotted<T> transport) throws MpiFailure {
        MpiComm node = topology.nodeComm();
        if (node.size() < 2 || !selector.connects(kind)) {
            return null;
        }
        int slotBytes = slotBytes(settings, selector.largestHostChunk(kind));
        return NodeHandshake.connect(
                node,
                node,
                topology.comm().rank(),
                transport.at(node.rank(), node.size(), settings.ringSlots(), slotBytes));
    }

    /** The instance's parts, each given what it uses, in the order each needs the one before. */
    private Broadcaster wire(Map<String, String> agreed) throws MpiFailure {
        int rank = comm.rank();
        StopNotices notices = new StopNotices(comm, rank);
        WaitLimit waits = WaitLimit.ofCalls(settings.timeout().toNanos(), settings.timeoutFails(), rank)
                .drivingProgress(notices);
        ThreadLevel level = comm.library().threadLevel();
        if (settings.progressThread() && level != ThreadLevel.MULTIPLE) {
            throw new IllegalStateException("HBCAST_PROGRESS_THREAD=1 needs MPI initialised with"
                    + " MPI.InitThread(args, MPI.THREAD_MULTIPLE), but MPI provides " + level.threadName());
        }
        ThreadGuard guard = new ThreadGuard(level, rank);
        numbers = new CallNumbers(waits);
        InstanceStop stop = new InstanceStop(rank, topology.position(), notices, ring, fanout, numbers::programCalls);
        ProgressWait progress = ProgressWait.forSharedCores(topology.ranksOnMachine(), waits);
        driver = new PlanDriver(comm, topology, waits);
        CountAgreement counts =
                new CountAgreement(new CallAgreement(comm, rank, progress), settings.counts(), comm.size(), stop);
        // The header needs only shared memory, so virtual nodes of one host share its board: no
        // header crosses the emulated network where the real nodes can post it for each other.
        NodeLayout hosts = topology.hostLayout();
        boolean auto = settings.choices().algorithm() == Algorithm.AUTO;
        boolean headed = settings.counts() == CountRule.ROOT && comm.size() > 1;
        refusals = headed && hosts.nodeCount() > 1 ? new RootRefusals(comm, hosts) : null;
        payloadTree = headed && hosts.nodeCount() > 1 ? payloadTree(hosts.nodeCount()) : PayloadTree.NONE;
        long headerBytes = auto
                ? CallHeaders.layoutCapacity(selector.headerBytes(), hosts.nodeCount() > 1, topology.isVirtual())
                : CallHeaders.NO_INLINE;
        CallHeaders headers = !headed
                ? null
                : new CallHeaders(
                        board,
                        hosts.nodeCount() == 1
                                ? null
                                : new HeaderRelay(
                                        comm,
                                        CallHeaders.HEADER_RADIX,
                                        hosts.nodeCount(),
                                        (int) Math.max(CallHeaders.NETWORK_INLINE_BYTES, headerBytes),
                                        payloadTree),
                        refusals,
                        hosts,
                        rank,
                        topology.host(),
                        topology.hostPosition(),
                        headerBytes,
                        progress);
        selection = new InRunSelection(comm, selector, headers != null && auto, progress);
        host = new HostCall(
                comm, headers, selection, driver, new HostMemory(ring, fanout), counts, stop, hosts.nodeCount() == 1);
        DeviceCall device = new DeviceCall(comm, topology, settings, selection, driver, waits, counts, stop);
        // Released in this order: the tree's requests, the header's receives, the CUDA ring, then the
        // node's board, fan-out and ring, as they were made.
        return new Broadcaster(
                comm,
                topology,
                agreed,
                selector,
                selection,
                guard,
                numbers,
                stop,
                host,
                device,
                notices,
                driver::close,
                refusals,
                device,
                board,
                fanout,
                ring);
    }

    /**
     * The tree of {@code hosts} leaders that the header relay sends large payloads down ({@link
     * PayloadTree#of}), from the network's agreed figures: the same on every rank.
     */
    private PayloadTree payloadTree(int hosts) {
        LinkCalibration network = selector.inputs().calibration().link(LinkKind.NETWORK);
        return PayloadTree.of(hosts, CallHeaders.HEADER_RADIX, network.startupSeconds(), network.bytesPerSecond());
    }

    /** The instance's calls, as create's warm-up and trials drive them. */
    private JitWarmUp.Calls calls() {
        return new JitWarmUp.Calls() {
            @Override
            public void bcast(ByteBuffer b, int bytes, int root) throws MpiFailure {
                made.bcast(b, bytes, ElementType.BYTE, null, root);
            }

            @Override
            public void run(Plan plan, ByteBuffer b, int bytes, int root) throws MpiFailure {
                host.runPlan(plan, b, bytes, root);
            }
        };
    }

    /** Create's warm-up ({@link JitWarmUp}) through the instance's calls. */
    private void warmUp(ByteBuffer buf) throws MpiFailure {
        JitWarmUp.run(
                comm,
                calls(),
                numbers,
                buf,
                selection,
                selector,
                host.headed(),
                topology.hostLayout().nodeCount() == 1,
                startNs);
    }

    /**
     * Create's trials ({@link CreateTrials}) across a network, where the model's guesses are the
     * least sure and a create takes seconds already; the calls are not the program's.
     */
    private void trials() throws MpiFailure {
        long trialsStart = System.nanoTime();
        numbers.warming(true);
        try {
            int decided = CreateTrials.run(
                    comm, calls(), selection, selector.inputs().fingerprint().id());
            if (comm.rank() == 0 && decided > 0) {
                long tookMs = (System.nanoTime() - trialsStart) / 1_000_000;
                Log.info(() -> "hbcast: create's trials decided " + decided + " sizes in " + tookMs + " ms");
            }
        } finally {
            numbers.warming(false);
        }
    }

    /** Frees what was made, once: the instance's parts where it was made, else the node's transports. */
    private void release() {
        if (made != null) {
            made.release();
        } else {
            // A failure inside wire: the tree's persistent requests and rank 0's pending refusal receive
            // go before the communicator they were posted on.
            QuietRelease.closeQuietly(topology, driver == null ? null : driver::close, refusals, board, fanout, ring);
            QuietRelease.freeQuietly(comm);
        }
    }

    static int slotBytes(BroadcastSettings settings, int largestChunk) {
        return settings.choices().chunkBytes() != 0
                ? settings.choices().chunkBytes()
                : Math.max(MIN_SLOT_BYTES, largestChunk);
    }
}
