package org.hbcast.orchestration;

import java.io.IOException;
import java.util.Base64;
import org.hbcast.call.Message;
import org.hbcast.call.TimedCollectives;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.JCudaCalls;
import org.hbcast.device.PinnedBuffer;
import org.hbcast.engine.RingPipeline;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;
import org.hbcast.stage.StageLoop;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.cuda.CudaRingMember;
import org.hbcast.transport.cuda.IpcDescriptor;
import org.hbcast.transport.cuda.PeerAccess;
import org.hbcast.transport.cuda.StagingCopies;
import org.hbcast.transport.shm.SharedSegment;

/**
 * What device calls need on this rank, made on the first device broadcast (collective, like the
 * broadcast itself) so that {@code HierarchicalBcast.create} never touches CUDA: the node's ring
 * GPU to GPU over CUDA IPC ({@link CudaRingMember}), and a leader's staging copies and pinned host
 * memory for the leaders' tree (Open MPI here is not CUDA-aware). {@link PlanDriver} decides which
 * of them a call runs.
 */
final class DeviceNode implements AutoCloseable {
    /** Staging copies in flight per leader. */
    private static final int STAGING_WINDOW = 16;

    /** Between a control block's path and its slots' IPC handle in a rank's descriptor (not in Base64). */
    private static final char DESCRIPTOR_SEPARATOR = '|';

    private final MpiComm nodeComm;
    private final CudaRingMember ring;
    private final StagingCopies staging;
    /** The loop of the baseline's whole-message copies: the one idle policy and timeout, like every call. */
    private final StageLoop wholeCopy;

    private PinnedBuffer pinned;
    /** The wire of buffer-to-buffer calls, bounded by the call's timeout. */
    private final DescriptorSwap swap;

    private final WaitLimit limit;

    private DeviceNode(
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
     * Collective over {@code comm}: picks every rank's device by its node rank, makes and connects
     * the node's CUDA IPC ring through the {@link NodeHandshake} (a rank's descriptor: its control
     * block's path and its slots' IPC handle), agreed over the whole communicator, since ranks on other
     * nodes would otherwise wait for this one. If any rank fails, all fail with its reason.
     */
    public static DeviceNode connect(MpiComm comm, Topology topology, int ringSlots, int slotBytes, WaitLimit limit)
            throws MpiFailure {
        MpiComm nodeComm = topology.nodeComm();
        int position = nodeComm.rank();
        int nodeSize = nodeComm.size();
        return NodeHandshake.connect(
                comm,
                nodeComm,
                "the node's CUDA ring",
                comm.rank(),
                () -> CudaRingMember.create(
                        SharedSegment.DEFAULT_DIRECTORY,
                        position,
                        nodeSize,
                        CudaDevices.get().deviceForLocalRank(position),
                        ringSlots,
                        slotBytes),
                m -> descriptor(m.controlPath().toString(), m.slotDescriptor()),
                (member, descriptors) -> attach(nodeComm, member, descriptors, topology.ranksOnMachine(), limit),
                CudaRingMember::unlinkControl);
    }

    /**
     * This rank refused the first device call's arguments where no per-call agreement tells the others
     * (trusted counts): it joins the ring's set-up, which every other rank is in, as a failure, so all
     * fail there with its reason instead of waiting for it. Always throws.
     */
    static void refuseConnect(MpiComm comm, Topology topology, String reason) throws MpiFailure {
        NodeHandshake.<CudaRingMember, DeviceNode>connect(
                comm,
                topology.nodeComm(),
                "the node's CUDA ring",
                comm.rank(),
                () -> {
                    throw new IOException(reason);
                },
                m -> "",
                (member, descriptors) -> null,
                member -> {});
        throw MpiErrors.failed(reason);
    }

    /** A rank's descriptor in the handshake: its control block's path, then its slots' IPC descriptor. */
    static String descriptor(String controlPath, byte[] slotDescriptor) {
        return controlPath + DESCRIPTOR_SEPARATOR + Base64.getEncoder().encodeToString(slotDescriptor);
    }

    /**
     * Splits the node's descriptors into the control blocks' paths and, at {@code p * IpcDescriptor.BYTES}
     * of {@code slots}, node rank {@code p}'s slot descriptor.
     *
     * @throws IllegalArgumentException for a descriptor that {@link #descriptor} did not make
     */
    static void decode(String[] descriptors, String[] paths, byte[] slots) {
        for (int p = 0; p < descriptors.length; p++) {
            int cut = descriptors[p].lastIndexOf(DESCRIPTOR_SEPARATOR);
            byte[] handle = cut < 0 ? null : Base64.getDecoder().decode(descriptors[p].substring(cut + 1));
            if (handle == null || handle.length != IpcDescriptor.BYTES) {
                throw new IllegalArgumentException(
                        "node rank " + p + " sent no CUDA ring descriptor: '" + descriptors[p] + "'");
            }
            paths[p] = descriptors[p].substring(0, cut);
            System.arraycopy(handle, 0, slots, p * IpcDescriptor.BYTES, IpcDescriptor.BYTES);
        }
    }

    /** Maps the right neighbour's control block and slots, from the node's descriptors; makes the staging stream. */
    private static DeviceNode attach(
            MpiComm nodeComm, CudaRingMember member, String[] descriptors, int ranksOnMachine, WaitLimit limit)
            throws IOException {
        String[] paths = new String[descriptors.length];
        byte[] slots = new byte[descriptors.length * IpcDescriptor.BYTES];
        decode(descriptors, paths, slots);
        // Devices go round-robin by node rank, so each rank knows its neighbour's without asking it.
        PeerAccess.require(
                JCudaCalls.INSTANCE,
                member.position(),
                member.device(),
                member.rightRank(),
                CudaDevices.get().deviceForLocalRank(member.rightRank()));
        member.connect(paths, slots);
        return new DeviceNode(
                nodeComm, member, new StagingCopies(member.device(), STAGING_WINDOW), ranksOnMachine, limit);
    }

    /** The ring's stage of a call along the node from node rank {@code first} (see {@link CudaRingMember#start}). */
    RingPipeline<DeviceBuffer> startRing(DeviceBuffer buf, long bytes, int chunkBytes, int first, boolean fed) {
        return ring.start(buf, bytes, chunkBytes, first, fed, swap);
    }

    /**
     * This rank gives up a device call before starting its part of the node's ring: its neighbours
     * learn at once instead of at their timeout (see {@link CudaRingMember#refuse}).
     */
    void refuseRing(long bytes) {
        ring.refuse(bytes, swap);
    }

    StagingCopies staging() {
        return staging;
    }

    /** Pinned host memory of at least {@code bytes}: what the leaders' tree moves for device calls. */
    PinnedBuffer pinnedAtLeast(long bytes) {
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

    int maxChunkBytes() {
        return ring.maxChunkBytes();
    }

    /** The ring's CUDA device: streams, events and mappings belong to it. */
    int deviceId() {
        return ring.device();
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
