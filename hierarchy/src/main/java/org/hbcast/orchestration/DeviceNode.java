package org.hbcast.orchestration;


import org.hbcast.call.Message;

import java.io.IOException;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.device.CudaDevices;
import org.hbcast.transport.cuda.CudaRingMember;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.transport.cuda.IpcDescriptor;
import org.hbcast.transport.cuda.NeighbourExchange;
import org.hbcast.device.PinnedBuffer;
import org.hbcast.transport.cuda.StagingCopies;
import org.hbcast.engine.RingPipeline;
import org.hbcast.transport.shm.SharedSegment;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.Topology;
import org.hbcast.stage.StageException;

/**
 * What device calls need on this rank, made on the first device broadcast (collective, like the
 * broadcast itself) so that {@code HierarchicalBcast.create} never touches CUDA: the node's ring
 * GPU to GPU over CUDA IPC ({@link CudaRingMember}), and a leader's staging copies and pinned host
 * memory for the leaders' tree (Open MPI here is not CUDA-aware). {@link PlanDriver} decides which
 * of them a call runs.
 */
final class DeviceNode implements NeighbourExchange, AutoCloseable {
    /** Staging copies in flight per leader. */
    private static final int STAGING_WINDOW = 16;
    private static final int DESCRIPTOR_TAG = 0x4864;
    private static final int PATH_BYTES = 512;

    private final Intracomm nodeComm;
    private final CudaRingMember ring;
    private final StagingCopies staging;
    private PinnedBuffer pinned;

    private DeviceNode(Intracomm nodeComm, CudaRingMember ring, StagingCopies staging) {
        this.nodeComm = nodeComm;
        this.ring = ring;
        this.staging = staging;
    }

    /**
     * Collective over {@code comm}: picks every rank's device by its node rank, makes and connects
     * the node's CUDA IPC ring. If any rank fails, all fail with its reason.
     */
    public static DeviceNode connect(Intracomm comm, Topology topology, int ringSlots, int slotBytes)
            throws MPIException {
        Intracomm nodeComm = topology.nodeComm();
        int position = nodeComm.getRank();
        int nodeSize = nodeComm.getSize();
        CudaRingMember member = null;
        String failure = null;
        try {
            int device = CudaDevices.get().deviceForLocalRank(position);
            member = CudaRingMember.create(SharedSegment.DEFAULT_DIRECTORY, position, nodeSize, device,
                    ringSlots, slotBytes);
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
        return new DeviceNode(nodeComm, member, staging);
    }

    /** The ring's stage of a call along the node from node rank {@code first} (see {@link CudaRingMember#start}). */
    RingPipeline<DeviceBuffer> startRing(DeviceBuffer buf, long bytes, int chunkBytes, int first, boolean fed) {
        return ring.start(buf, bytes, chunkBytes, first, fed, this);
    }

    /** The descriptor swap of buffer-to-buffer calls, over the node communicator. */
    @Override
    public void swap(byte[] toLeft, byte[] fromRight) {
        try {
            nodeComm.sendRecv(toLeft, toLeft.length, MPI.BYTE, ring.leftRank(), DESCRIPTOR_TAG, fromRight,
                    fromRight.length, MPI.BYTE, ring.rightRank(), DESCRIPTOR_TAG);
        } catch (MPIException e) {
            throw new StageException("cannot swap buffer descriptors with the ring neighbours: " + e.getMessage(), e);
        }
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
    void stagedNative(Intracomm comm, DeviceBuffer buf, long bytes, int root) throws MPIException {
        PinnedBuffer host = pinnedAtLeast(bytes);
        boolean isRoot = comm.getRank() == root;
        if (isRoot) {
            copyWhole(true, buf, host, bytes);
        }
        comm.bcast(host.buffer(), (int) bytes, MPI.BYTE, root);
        if (!isRoot) {
            copyWhole(false, buf, host, bytes);
        }
    }

    private void copyWhole(boolean toHost, DeviceBuffer buf, PinnedBuffer host, long bytes) {
        staging.start(toHost, buf, host.address(), bytes, (int) bytes, false);
        while (!staging.isDone()) {
            if (staging.progress() == 0) {
                Thread.onSpinWait();
            }
        }
    }

    int maxChunkBytes() {
        return ring.maxChunkBytes();
    }

    /** The ring's CUDA device: streams, events and mappings belong to it. */
    int deviceId() {
        return ring.device();
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
