package org.hbcast;

import java.io.IOException;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.gpu.cuda.CudaContext;
import org.hbcast.gpu.cuda.CudaDevices;
import org.hbcast.gpu.cuda.CudaRingMember;
import org.hbcast.gpu.cuda.DeviceBuffer;
import org.hbcast.gpu.cuda.IpcDescriptor;
import org.hbcast.gpu.cuda.PinnedBuffer;
import org.hbcast.gpu.cuda.StagingCopies;
import org.hbcast.gpu.ring.RingException;
import org.hbcast.gpu.ring.RingPipeline;
import org.hbcast.gpu.ring.RingRole;
import org.hbcast.gpu.shm.SharedSegment;
import org.hbcast.mpi.KnomialBroadcast;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.Topology;

/**
 * The device-buffer half of {@link HierarchicalBcast}: the node's ring runs GPU to GPU over CUDA IPC
 * ({@link CudaRingMember}); node leaders stage chunks through pinned host memory for the leaders'
 * k-nomial tree (Open MPI here is not CUDA-aware), device to host at the root and host to device at
 * the other leaders, every chunk overlapped with the network and with the ring.
 *
 * <p>Made on the first device broadcast (collective, like the broadcast itself), so that
 * {@code HierarchicalBcast.create} never touches CUDA. Messages of at least
 * {@link #DIRECT_MIN_BYTES} go straight from buffer to buffer (the neighbours swap their buffers'
 * IPC descriptors first); smaller ones go through the links' fixed slots and need no exchange.
 */
final class DeviceBroadcast implements AutoCloseable {
    /** From this size on the ring copies buffer to buffer; below it, through the slots. */
    static final long DIRECT_MIN_BYTES = 1 << 20;
    /** Staging copies in flight per leader. */
    private static final int STAGING_WINDOW = 16;
    private static final int TAG = 0x4863;
    private static final int DESCRIPTOR_TAG = 0x4864;
    private static final int PATH_BYTES = 512;

    private final Intracomm comm;
    private final Topology topology;
    private final NodeLayout layout;
    private final BcastOptions options;
    private final CudaRingMember ring;
    private final StagingCopies staging;
    private final KnomialBroadcast tree;
    private final int rank;
    private final int size;
    private final int[] everyRank;
    private final int[] leaders;
    private final byte[] myDescriptor = new byte[IpcDescriptor.BYTES];
    private final byte[] rightDescriptor = new byte[IpcDescriptor.BYTES];
    private final StagedTreeLevel between;
    private final TwoLevelLoop loop;
    private PinnedBuffer pinned;

    private DeviceBroadcast(Intracomm comm, Topology topology, BcastOptions options, CudaRingMember ring,
                            StagingCopies staging) throws MPIException {
        this.comm = comm;
        this.topology = topology;
        this.layout = topology.layout();
        this.options = options;
        this.loop = new TwoLevelLoop(options.timeout().toNanos());
        this.ring = ring;
        this.staging = staging;
        this.tree = new KnomialBroadcast(comm, TAG);
        this.between = new StagedTreeLevel(tree, staging);
        this.rank = comm.getRank();
        this.size = comm.getSize();
        this.everyRank = new int[size];
        Arrays.setAll(everyRank, r -> r);
        this.leaders = new int[layout.nodeCount()];
    }

    /**
     * Collective over {@code comm}: picks every rank's device by its node rank, makes and connects
     * the node's CUDA IPC ring. If any rank fails, all fail with its reason.
     */
    static DeviceBroadcast connect(Intracomm comm, Topology topology, BcastOptions options, int slotBytes)
            throws MPIException {
        Intracomm nodeComm = topology.nodeComm();
        int position = nodeComm.getRank();
        int nodeSize = nodeComm.getSize();
        CudaRingMember member = null;
        String failure = null;
        try {
            int device = CudaDevices.get().deviceForLocalRank(position);
            member = CudaRingMember.create(SharedSegment.DEFAULT_DIRECTORY, position, nodeSize, device,
                    options.ringSlots(), slotBytes);
        } catch (IOException | RuntimeException e) {
            failure = "cannot set up the CUDA ring on rank " + comm.getRank() + ": " + e.getMessage();
        }
        // Agreed over the whole communicator: ranks on other nodes would otherwise wait for this one.
        NodeSetup.agreeOrFail(comm, failure, member);
        String[] paths = StringExchange.allGather(nodeComm, member.controlPath().toString(), PATH_BYTES);
        byte[] slots = new byte[nodeSize * IpcDescriptor.BYTES];
        nodeComm.allGather(member.slotDescriptor(), IpcDescriptor.BYTES, MPI.BYTE, slots, IpcDescriptor.BYTES, MPI.BYTE);
        StagingCopies staging = null;
        try {
            member.connect(paths, slots);
            staging = new StagingCopies(member.device(), STAGING_WINDOW);
        } catch (IOException | RuntimeException e) {
            failure = "cannot connect the CUDA ring on rank " + comm.getRank() + " to node rank "
                    + member.rightRank() + ": " + e.getMessage();
        }
        NodeSetup.agreeOrFail(comm, failure, member);
        try {
            member.unlinkControl();
        } catch (IOException e) {
            // close() removes a file still linked; the ring works either way.
        }
        return new DeviceBroadcast(comm, topology, options, member, staging);
    }

    /**
     * Broadcasts {@code bytes} of {@code buf} from {@code root} with {@code plan}: the native plan
     * stages the whole message (the baseline), the others run the device hierarchy.
     *
     * @throws RingException when the ring fails (the caller turns it into an MPIException)
     */
    void bcast(DeviceBuffer buf, long bytes, int root, Plan plan) throws MPIException {
        // Streams, events and IPC mappings belong to the ring's device; the caller's thread may have another current.
        CudaContext.use(ring.device());
        if (plan.algorithm() == Algorithm.NATIVE) {
            stagedNative(buf, bytes, root);
            return;
        }
        int chunk = Math.min(plan.chunkBytes(), ring.maxChunkBytes());
        if (plan.algorithm() == Algorithm.KNOMIAL) {
            // A flat tree over every rank, each staging its own copy: no ring.
            run(buf, bytes, root, everyRank, size, rank, root, plan.radix(), chunk, null, false, size > 1);
            return;
        }
        int rootNode = layout.nodeOf(root);
        int myNode = topology.node();
        layout.leaders(root, leaders);
        RingPipeline<DeviceBuffer> pipeline = ring.pipeline();
        RingRole role = ring.role(layout.positionOf(leaders[myNode]));
        if (bytes >= DIRECT_MIN_BYTES && ring.ringSize() > 1) {
            Intracomm nodeComm = topology.nodeComm();
            IpcDescriptor.encode(buf, myDescriptor, 0);
            nodeComm.sendRecv(myDescriptor, IpcDescriptor.BYTES, MPI.BYTE, ring.leftRank(), DESCRIPTOR_TAG,
                    rightDescriptor, IpcDescriptor.BYTES, MPI.BYTE, ring.rightRank(), DESCRIPTOR_TAG);
            ring.bindDirect(buf, role.sends(), rightDescriptor, 0);
        } else {
            ring.bindStaged(buf);
        }
        boolean fed = role == RingRole.FIRST && rank != root;
        if (fed) {
            pipeline.resetFed(buf, bytes, chunk);
        } else {
            pipeline.reset(role, buf, bytes, chunk);
        }
        boolean leader = leaders[myNode] == rank && leaders.length > 1;
        run(buf, bytes, root, leaders, leaders.length, myNode, rootNode, plan.radix(), chunk,
                pipeline, fed, leader);
    }

    /** Runs tree, staging and ring in one loop until all three are done; throws on a timeout. */
    private void run(DeviceBuffer buf, long bytes, int root, int[] participants, int n, int me, int rootIndex,
                     int radix, int chunk, RingPipeline<DeviceBuffer> pipeline, boolean fed, boolean treeActive) throws MPIException {
        if (treeActive) {
            PinnedBuffer host = pinnedAtLeast(bytes);
            tree.start(participants, n, me, rootIndex, radix, host.buffer(), 1, bytes, chunk);
            staging.start(rank == root, buf, host.address(), bytes, chunk);
            between.begin(rank == root);
        }
        String waitedFor = loop.run(treeActive ? between : null, pipeline, fed);
        if (waitedFor != null) {
            throw new MPIException("hbcast device bcast on rank " + rank + " timed out after "
                    + options.timeout().toMillis() / 1000.0 + " s waiting for " + waitedFor);
        }
    }

    /** The baseline: the whole message to pinned host memory, the library's bcast, back to the device. */
    private void stagedNative(DeviceBuffer buf, long bytes, int root) throws MPIException {
        PinnedBuffer host = pinnedAtLeast(bytes);
        int whole = (int) bytes;
        if (rank == root) {
            copyWhole(true, buf, host, bytes);
        }
        comm.bcast(host.buffer(), whole, MPI.BYTE, root);
        if (rank != root) {
            copyWhole(false, buf, host, bytes);
        }
    }

    private void copyWhole(boolean toHost, DeviceBuffer buf, PinnedBuffer host, long bytes) {
        staging.start(toHost, buf, host.address(), bytes, (int) bytes);
        staging.issue(1);
        while (!staging.isDone()) {
            if (staging.poll() == 0) {
                Thread.onSpinWait();
            }
        }
    }

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

    /** IPC mappings opened so far by this rank (for tests: must not grow for a buffer already seen). */
    long ipcOpens() {
        return ring.mappings().opens();
    }

    /** Frees the ring, the staging stream and the pinned memory. Not collective. */
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
            ring.close();
        }
    }
}
