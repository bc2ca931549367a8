package org.hbcast.orchestration;

import java.nio.Buffer;
import java.util.Arrays;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.call.HostCopy;
import org.hbcast.device.CudaContext;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.PinnedBuffer;
import org.hbcast.engine.FanoutPipeline;
import org.hbcast.engine.RingPipeline;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.TreeBroadcast;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.Plan;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageLoop;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.cuda.StagingCopies;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmRingLinks;

/**
 * The one orchestrator of a call's plan, for host and device memory alike: picks the stages this
 * rank runs (the leaders' tree, a device leader's staging copies, the node's ring or fan-out), starts
 * them over the same chunks and drives them in one {@link StageLoop}. The memory kind decides only
 * which stages run and over which transport:
 *
 * <pre>
 * rank                   host memory            device memory
 * root's leader          tree, node             staging to host, tree (fed), node
 * other node leaders     tree, node (fed)       tree, staging to GPU (fed), node (fed)
 * (tree: the leaders' schedule, a k-nomial tree, chain or two trees as the plan says)
 * other ranks            node                   node
 * flat tree (KNOMIAL)    tree                   staging and tree as a leader, no node stage
 * </pre>
 *
 * A failure, or a timeout where the wait's limit gives up, comes out as one {@link MpiFailure}
 * naming this rank, what it waited for and, inside the node, which ranks the node ranks are.
 * Allocation-free per call after warm-up.
 */
final class PlanDriver {
    /** The leaders' tree's tags: even calls, odd calls (see {@link TreeBroadcast}). */
    private static final int TAG = 0x4862;

    private static final int ODD_TAG = 0x4866;

    private final Topology topology;
    private final NodeLayout layout;
    private final long timeoutNs;
    private final int rank;
    private final int size;
    private final int[] everyRank;
    private final int[] leaders;
    private final TreeBroadcast tree;
    private final StageLoop loop;
    /** The node's ring links for host memory, and the engine's pipeline over them (null where no host plan uses them). */
    private final ShmRingLinks ring;

    private final RingPipeline<MutableDirectBuffer> ringPipeline;
    /** The engine's fan-out over the node's segment, for host memory (null where no host plan uses it). */
    private final FanoutPipeline<MutableDirectBuffer> fanout;

    private final UnsafeBuffer hostMemory = new UnsafeBuffer(0, 0);

    PlanDriver(MpiComm comm, Topology topology, WaitLimit limit, ShmRingLinks ring, ShmFanout fanout)
            throws MpiFailure {
        this.topology = topology;
        this.layout = topology.layout();
        this.timeoutNs = limit.periodNs();
        this.rank = comm.rank();
        this.size = comm.size();
        this.everyRank = new int[size];
        Arrays.setAll(everyRank, r -> r);
        this.leaders = new int[layout.nodeCount()];
        this.tree = new TreeBroadcast(comm, TAG, ODD_TAG);
        this.loop = new StageLoop(ProgressWait.forSharedCores(topology.ranksOnMachine(), limit));
        this.ring = ring;
        this.ringPipeline = ring == null ? null : ring.newPipeline();
        this.fanout = fanout == null ? null : fanout.pipeline();
    }

    /**
     * Runs {@code plan} (not native) on the direct host memory {@code data} of {@code bytes}.
     *
     * @param call the call's number, the same on every rank (it stamps the tree's messages)
     */
    void runHost(long call, Plan plan, Buffer data, int entryBytes, long bytes, int root) throws MpiFailure {
        execute(call, plan, plan.chunkBytes(), bytes, root, data, entryBytes, null, null);
    }

    /** Runs {@code plan} (not native) on the device buffer {@code data} of {@code bytes}; {@code call} as for {@link #runHost}. */
    void runDevice(long call, Plan plan, DeviceBuffer data, long bytes, int root, DeviceNode device) throws MpiFailure {
        // Streams, events and IPC mappings belong to the ring's device; the caller's thread may have another current.
        CudaContext.use(device.deviceId());
        // Device calls cut at the ring's slot (the options' chunk, or CudaRingMember.CHUNK_BYTES): a GPU
        // hop's cost is mostly fixed, so the host's model chunks would be too small.
        execute(call, plan, device.maxChunkBytes(), bytes, root, null, 1, data, device);
    }

    private void execute(
            long call,
            Plan plan,
            int chunk,
            long bytes,
            int root,
            Buffer hostData,
            int entryBytes,
            DeviceBuffer deviceData,
            DeviceNode device)
            throws MpiFailure {
        Stage stalled;
        boolean ringStarted = false;
        try {
            loop.clear();
            boolean flat = plan.algorithm() == Algorithm.KNOMIAL;
            int myNode = topology.node();
            if (!flat) {
                layout.leaders(root, leaders);
            }
            boolean leader = flat || leaders[myNode] == rank;
            int[] participants = flat ? everyRank : leaders;
            if (leader && participants.length > 1) {
                addTree(
                        call,
                        plan,
                        participants,
                        flat ? rank : myNode,
                        flat ? root : layout.nodeOf(root),
                        chunk,
                        bytes,
                        root,
                        hostData,
                        entryBytes,
                        deviceData,
                        device);
            }
            if (!flat && layout.nodeSize(myNode) > 1) {
                boolean fed = leader && rank != root;
                int first = layout.positionOf(leaders[myNode]);
                // Set before the start: a failure inside it has already told the ring neighbours.
                ringStarted = true;
                Stage node = deviceData != null
                        ? device.startRing(deviceData, bytes, chunk, first, fed)
                        : startHostNode(plan, hostData, bytes, chunk, first, leader, fed);
                loop.add(node, fed);
            }
            stalled = loop.run();
        } catch (RuntimeException e) {
            if (deviceData != null && !ringStarted && plan.algorithm() != Algorithm.KNOMIAL) {
                // Failed before its part of the node's ring (its staging memory, say): its neighbours
                // would otherwise wait for it until the timeout, or in the descriptor swap.
                device.refuseRing(bytes);
            }
            throw MpiErrors.failed("hbcast bcast on rank " + rank + ": " + e.getMessage() + nodeRanks(), e);
        }
        if (stalled != null) {
            throw MpiErrors.failed("hbcast bcast on rank " + rank + " timed out after " + timeoutNs / 1e9
                    + " s waiting for " + stalled.describeWait() + (stalled == tree ? "" : nodeRanks()));
        }
    }

    /**
     * The leaders' schedule among {@code participants} (every rank for the flat tree); for device memory, with the staging copies before it (at
     * the root: the tree sends what is on the host) or after it (elsewhere: the node gets what is on
     * the GPU).
     */
    private void addTree(
            long call,
            Plan plan,
            int[] participants,
            int me,
            int rootIndex,
            int chunk,
            long bytes,
            int root,
            Buffer hostData,
            int entryBytes,
            DeviceBuffer deviceData,
            DeviceNode device) {
        boolean sends = rank == root;
        if (deviceData == null) {
            tree.start(
                    call,
                    plan.leaderShape(),
                    participants,
                    participants.length,
                    me,
                    rootIndex,
                    plan.radix(),
                    hostData,
                    entryBytes,
                    bytes,
                    chunk,
                    false);
            loop.add(tree, false);
            return;
        }
        PinnedBuffer host = device.pinnedAtLeast(bytes);
        StagingCopies staging = device.staging();
        staging.start(sends, deviceData, host.address(), bytes, chunk, !sends);
        tree.start(
                call,
                plan.leaderShape(),
                participants,
                participants.length,
                me,
                rootIndex,
                plan.radix(),
                host.buffer(),
                1,
                bytes,
                chunk,
                sends);
        if (sends) {
            loop.add(staging, false).add(tree, true);
        } else {
            loop.add(tree, false).add(staging, true);
        }
    }

    private Stage startHostNode(Plan plan, Buffer data, long bytes, int chunk, int first, boolean leader, boolean fed) {
        hostMemory.wrap(HostCopy.address(data), (int) bytes);
        if (plan.usesFanout()) {
            if (!leader) {
                fanout.startReader(first, hostMemory, bytes, chunk);
            } else if (fed) {
                fanout.startFedWriter(hostMemory, bytes, chunk);
            } else {
                fanout.startWriter(hostMemory, bytes, chunk);
            }
            return fanout;
        }
        return fed
                ? ringPipeline.resetFed(hostMemory, bytes, chunk)
                : ringPipeline.reset(ring.role(first), hostMemory, bytes, chunk);
    }

    /** Frees the tree's persistent requests; before the communicator is freed. */
    void close() {
        tree.close();
    }

    /** Which ranks the node ranks named in a message are: allocates, for failures only. */
    private String nodeRanks() {
        int node = topology.node();
        StringBuilder sb = new StringBuilder(" (node ")
                .append(node)
                .append(": node ranks 0..")
                .append(layout.nodeSize(node) - 1)
                .append(" are ranks");
        for (int p = 0; p < layout.nodeSize(node); p++) {
            sb.append(p == 0 ? " " : ",").append(layout.rankAt(node, p));
        }
        return sb.append(')').toString();
    }
}
