package org.hbcast.orchestration;

import java.io.IOException;
import java.nio.Buffer;
import org.hbcast.call.Message;
import org.hbcast.call.TimedCollectives;
import org.hbcast.device.CudaContext;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.PinnedBuffer;
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
import org.hbcast.transport.cuda.CudaRingTransport;
import org.hbcast.transport.cuda.IpcDescriptor;
import org.hbcast.transport.cuda.StagingCopies;

/**
 * Device memory as {@link PlanDriver} moves it, and what device calls need on this rank to move it:
 * the node's ring GPU to GPU over CUDA IPC ({@link CudaRingMember}), and a leader's staging copies and
 * pinned host memory for the leaders' tree (Open MPI here is not CUDA-aware). Made on the first device
 * broadcast (collective, like the broadcast itself) so that {@code HierarchicalBcast.create} never
 * touches CUDA.
 */
final class DeviceMemory implements CallMemory, AutoCloseable {
    /** Staging copies in flight per leader. */
    private static final int STAGING_WINDOW = 16;

    private final MpiComm nodeComm;
    private final CudaRingMember ring;
    private final StagingCopies staging;
    /** The loop of the baseline's whole-message copies: the one idle policy and timeout, like every call. */
    private final StageLoop wholeCopy;

    private PinnedBuffer pinned;
    /** The wire of buffer-to-buffer calls, bounded by the call's timeout. */
    private final DescriptorSwap swap;

    private final WaitLimit limit;
    /** The call's buffer, between {@link #bind} and {@link #end}. */
    private DeviceBuffer data;

    private DeviceMemory(
            MpiComm nodeComm, CudaRingMember ring, StagingCopies staging, int ranksOnMachine, WaitLimit limit) {
        this.nodeComm = nodeComm;
        this.ring = ring;
        this.staging = staging;
        this.wholeCopy = new StageLoop(ProgressWait.forSharedCores(ranksOnMachine, limit));
        this.swap = new DescriptorSwap(
                nodeComm,
                ring.leftRank(),
                ring.rightRank(),
                IpcDescriptor.BYTES,
                ProgressWait.forSharedCores(ranksOnMachine, limit));
        this.limit = limit;
    }

    /**
     * Collective over {@code comm}: connects the node's CUDA ring through the one set-up path
     * ({@link NodeHandshake}), agreed over the whole communicator since ranks on other nodes would
     * otherwise wait for this one, then makes the staging stream. If any rank fails, all fail with its reason.
     */
    static DeviceMemory connect(MpiComm comm, Topology topology, CudaRingTransport transport, WaitLimit limit)
            throws MpiFailure {
        CudaRingMember ring = NodeHandshake.connect(comm, topology.nodeComm(), comm.rank(), transport);
        StagingCopies staging = null;
        DeviceMemory made = null;
        String failure = null;
        try {
            staging = new StagingCopies(ring.device(), STAGING_WINDOW);
            made = new DeviceMemory(topology.nodeComm(), ring, staging, topology.ranksOnMachine(), limit);
        } catch (RuntimeException e) {
            failure = "cannot set up the staging copies on rank " + comm.rank() + ": " + e.getMessage();
        }
        try {
            CreateTogether.check(comm, failure);
        } catch (MpiFailure e) {
            // Not close(): its node-wide barrier would wait for ranks that are failing too.
            QuietRelease.closeQuietly(null, staging, ring);
            throw e;
        }
        return made;
    }

    /** This memory for a call on {@code buf}. */
    DeviceMemory bind(DeviceBuffer buf) {
        this.data = buf;
        return this;
    }

    @Override
    public int begin(Plan plan) {
        // Streams, events and IPC mappings belong to the ring's device; the caller's thread may have another current.
        CudaContext.use(ring.device());
        // Device calls cut at the ring's slot (the options' chunk, or CudaRingMember.CHUNK_BYTES): a GPU
        // hop's cost is mostly fixed, so the host's model chunks would be too small.
        return ring.maxChunkBytes();
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
        return ring.start(data, bytes, chunkBytes, first, fed, swap);
    }

    /**
     * This rank gives up a device call before starting its part of the node's ring: its neighbours
     * learn at once instead of at their timeout, or in the descriptor swap (see {@link CudaRingMember#refuse}).
     */
    @Override
    public void refuseNode(long bytes) {
        ring.refuse(bytes, swap);
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

    /** IPC mappings opened so far by this rank: the neighbour's slots once, its buffer once per direct call sent. */
    long ipcOpens() {
        return ring.mappings().opens() + ring.userMappingOpens();
    }

    /** True while this rank maps a neighbour's buffer: never between calls that succeeded. */
    boolean holdsUserMapping() {
        return ring.holdsUserMapping();
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
                ring.unmapPeers();
            } finally {
                try {
                    // Between unmapping the peers' memory and freeing one's own; bounded by the timeout
                    // whatever the options say: at close a rank that does not come has died.
                    new TimedCollectives(nodeComm, 1, ProgressWait.backingOff(limit.periodNs()))
                            .barrier(() -> "the node's ranks to unmap the CUDA ring");
                } catch (MpiFailure e) {
                    // The node could not meet: free anyway, the peers are gone or failing too.
                } finally {
                    ring.close();
                }
            }
        }
    }
}
