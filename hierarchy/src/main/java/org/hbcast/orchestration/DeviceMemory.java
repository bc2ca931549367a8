package org.hbcast.orchestration;

import java.io.IOException;
import java.nio.Buffer;
import org.hbcast.call.Message;
import org.hbcast.call.TimedCollectives;
import org.hbcast.device.CudaContext;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.JCudaCalls;
import org.hbcast.device.PinnedBuffer;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.plan.Plan;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;
import org.hbcast.stage.StageLoop;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.cuda.CudaRingMember;
import org.hbcast.transport.cuda.GpuGroupMember;
import org.hbcast.transport.cuda.GpuGroupTransport;
import org.hbcast.transport.cuda.GpuGroups;
import org.hbcast.transport.cuda.StagingCopies;
import org.hbcast.transport.shm.SharedSegment;

/**
 * Device memory as {@link PlanDriver} moves it, and what device calls need on this rank to move it:
 * the node's ranks grouped by GPU, one copier per GPU and a ring between GPUs over CUDA IPC
 * ({@link GpuGroupMember}), and a leader's staging copies and
 * pinned host memory for the leaders' tree (Open MPI here is not CUDA-aware). Made on the first device
 * broadcast (collective, like the broadcast itself) so that {@code HierarchicalBcast.create} never
 * touches CUDA.
 */
final class DeviceMemory implements CallMemory, AutoCloseable {
    /** Staging copies in flight per leader. */
    private static final int STAGING_WINDOW = 16;

    private final MpiComm nodeComm;
    private final GpuGroupMember group;
    private final StagingCopies staging;
    /** The loop of the baseline's whole-message copies: the one idle policy and timeout, like every call. */
    private final StageLoop wholeCopy;

    private PinnedBuffer pinned;
    /** The wire of every node call's start (the records of the node's buffers), bounded by the call's timeout. */
    private final GroupGather gather;

    private final WaitLimit limit;
    /** The call's buffer, between {@link #bind} and {@link #end}. */
    private DeviceBuffer data;

    private DeviceMemory(
            MpiComm nodeComm, GpuGroupMember group, StagingCopies staging, int ranksOnMachine, WaitLimit limit)
            throws MpiFailure {
        this.nodeComm = nodeComm;
        this.group = group;
        this.staging = staging;
        this.wholeCopy = new StageLoop(ProgressWait.forSharedCores(ranksOnMachine, limit));
        this.gather = new GroupGather(
                nodeComm, GpuGroupMember.RECORD_BYTES, ProgressWait.forSharedCores(ranksOnMachine, limit));
        this.limit = limit;
    }

    /**
     * Collective over {@code comm}: the node's ranks tell each other which GPU they use (its UUID) and
     * which they reach, then set up the GPU groups through the one set-up path ({@link NodeHandshake}),
     * agreed over the whole communicator since ranks on other nodes would otherwise wait for this one,
     * then make the staging stream. If any rank fails, all fail with its reason.
     *
     * @param slots slots of each link
     * @param slotBytes bytes of each slot: the largest chunk of a device call
     */
    static DeviceMemory connect(MpiComm comm, Topology topology, int slots, int slotBytes, WaitLimit limit)
            throws MpiFailure {
        MpiComm node = topology.nodeComm();
        int position = node.rank();
        int device = -1;
        String placement;
        try {
            device = CudaDevices.get().deviceForLocalRank(position);
            placement = GpuGroupMember.placement(JCudaCalls.INSTANCE, device);
        } catch (RuntimeException e) {
            placement = REFUSED + e.getMessage();
        }
        // Every rank of the node joins, refused or not: the groups need everyone's GPU.
        String[] placements = StringExchange.allGatherAny(node, placement);
        String failure = null;
        GpuGroups groups = null;
        for (int p = 0; p < placements.length && failure == null; p++) {
            if (placements[p].startsWith(REFUSED)) {
                failure = "node rank " + p + ": " + placements[p].substring(REFUSED.length());
            }
        }
        if (failure == null) {
            try {
                groups = GpuGroupMember.groups(placements);
            } catch (IllegalArgumentException e) {
                failure = e.getMessage();
            }
        }
        GpuGroupTransport transport =
                new GpuGroupTransport(SharedSegment.DEFAULT_DIRECTORY, position, device, groups, slots, slotBytes);
        if (failure != null) {
            NodeHandshake.refuse(comm, comm.rank(), transport, failure);
        }
        GpuGroupMember group = NodeHandshake.connect(comm, node, comm.rank(), transport);
        StagingCopies staging = null;
        DeviceMemory made = null;
        failure = null;
        try {
            staging = new StagingCopies(group.device(), STAGING_WINDOW);
            made = new DeviceMemory(node, group, staging, topology.ranksOnMachine(), limit);
        } catch (RuntimeException | MpiFailure e) {
            failure = "cannot set up the staging copies on rank " + comm.rank() + ": " + e.getMessage();
        }
        try {
            CreateTogether.check(comm, failure);
        } catch (MpiFailure e) {
            // Not close(): its node-wide barrier would wait for ranks that are failing too.
            QuietRelease.closeQuietly(null, staging, group);
            throw e;
        }
        return made;
    }

    /**
     * Joins the first device call's set-up as a rank that refused its arguments, step for step with
     * the others' {@link #connect}: the node's placement gather (refused, so its node fails there),
     * then the handshake's agreement over {@code comm}, where every rank fails with the first reason.
     * Always throws.
     */
    static void refuseConnect(MpiComm comm, Topology topology, String reason) throws MpiFailure {
        MpiComm node = topology.nodeComm();
        StringExchange.allGatherAny(node, REFUSED + reason);
        NodeHandshake.refuse(
                comm,
                comm.rank(),
                new GpuGroupTransport(SharedSegment.DEFAULT_DIRECTORY, node.rank(), -1, null, 1, 1),
                reason);
    }

    /** Marks a placement that could not be made; what follows is why. */
    private static final String REFUSED = "!";

    /** This memory for a call on {@code buf}. */
    DeviceMemory bind(DeviceBuffer buf) {
        this.data = buf;
        return this;
    }

    @Override
    public int begin(Plan plan) {
        // Streams, events and IPC mappings belong to the ring's device; the caller's thread may have another current.
        CudaContext.use(group.device());
        // Device calls cut at the ring's slot (the options' chunk, or CudaRingMember.CHUNK_BYTES): a GPU
        // hop's cost is mostly fixed, so the host's model chunks would be too small.
        return group.maxChunkBytes();
    }

    @Override
    public Stage startStaging(boolean toHost, long bytes, int chunkBytes) {
        PinnedBuffer host = pinnedAtLeast(bytes);
        staging.start(toHost, data, host.address(), bytes, chunkBytes, !toHost);
        return staging;
    }

    @Override
    public Buffer treeData() {
        return pinned.buffer();
    }

    @Override
    public int treeEntryBytes() {
        return 1;
    }

    @Override
    public Stage startNode(Plan plan, long bytes, int chunkBytes, int first, boolean leader, boolean fed) {
        return group.start(data, bytes, chunkBytes, first, fed, gather);
    }

    /**
     * This rank gives up a device call before starting its part of the node's stage: it joins the
     * call's gather with a refusal, so every rank of the node learns at once instead of at its timeout
     * (see {@link GpuGroupMember#refuse}).
     */
    @Override
    public void refuseNode(long bytes) {
        group.refuse(gather);
    }

    /** Which GPUs, copiers and hops a node call starting at node rank {@code first} uses, in words. */
    String groupPlan(int first) {
        return group.groups().describe(first);
    }

    @Override
    public void end() {
        data = null;
    }

    /** Pinned host memory of at least {@code bytes}: what the leaders' tree moves for device calls. */
    private PinnedBuffer pinnedAtLeast(long bytes) {
        if (pinned == null || pinned.bytes() < bytes) {
            if (pinned != null) {
                pinned.close();
                pinned = null;
            }
            long rounded = Math.max(1 << 16, Long.highestOneBit(Math.max(bytes - 1, 1)) << 1);
            pinned = PinnedBuffer.allocate((int) Math.min(rounded, Message.MAX_BYTES));
        }
        return pinned;
    }

    /** The baseline: the whole message to pinned host memory, the library's bcast, back to the device. */
    void stagedNative(MpiComm comm, DeviceBuffer buf, long bytes, int root) throws MpiFailure {
        PinnedBuffer host = pinnedAtLeast(bytes);
        boolean isRoot = comm.rank() == root;
        if (isRoot) {
            copyWhole(true, buf, host, bytes);
        }
        comm.bcast(host.buffer(), (int) bytes, BasicType.BYTE, root);
        if (!isRoot) {
            copyWhole(false, buf, host, bytes);
        }
    }

    private void copyWhole(boolean toHost, DeviceBuffer buf, PinnedBuffer host, long bytes) {
        staging.start(toHost, buf, host.address(), bytes, (int) bytes, false);
        Stage stalled = wholeCopy.clear().add(staging, false).run();
        if (stalled != null) {
            throw new StageException("timed out waiting for " + stalled.describeWait());
        }
    }

    /**
     * IPC mappings opened so far by this rank: its GPU's members' library buffers once each (kept while
     * unchanged), on a GPU leader the next leader's slots once and its library buffer once, and the
     * program's own memory once per buffer and call.
     */
    long ipcOpens() {
        CudaRingMember ring = group.ring();
        return group.memberMappingOpens()
                + group.programMappingOpens()
                + (ring == null ? 0 : ring.mappings().opens());
    }

    /**
     * True while this rank maps a peer's program memory for one call: never between calls that
     * succeeded. Mappings of the library's own buffers are kept across calls, their frees deferred.
     */
    boolean holdsUserMapping() {
        return group.holdsProgramMapping();
    }

    /**
     * Frees the ring, the staging stream and the pinned memory. Collective over the node: every rank
     * first closes its mappings of its peers' memory, then the node meets, and only then does each
     * free its own slots, which a peer mapping them would otherwise see freed under it (CUDA leaves
     * that undefined). A rank that does not come within the timeout (it died) is not waited for longer.
     */
    @Override
    public void close() throws IOException {
        try {
            if (staging != null) {
                staging.close();
            }
            if (pinned != null) {
                pinned.close();
            }
        } finally {
            try {
                group.unmapPeers();
            } finally {
                try {
                    // Between unmapping the peers' memory and freeing one's own; bounded by the timeout
                    // whatever the options say: at close a rank that does not come has died.
                    new TimedCollectives(nodeComm, 1, ProgressWait.backingOff(limit.periodNs()))
                            .barrier(() -> "the node's ranks to unmap the GPU groups' memory");
                } catch (MpiFailure e) {
                    // The node could not meet: free anyway, the peers are gone or failing too.
                } finally {
                    group.close();
                }
            }
        }
    }
}
