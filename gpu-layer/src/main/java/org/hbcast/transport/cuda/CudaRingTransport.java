package org.hbcast.transport.cuda;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Base64;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.JCudaCalls;
import org.hbcast.transport.NodeTransport;

/**
 * The node's CUDA IPC ring as a {@link NodeTransport}: every rank makes its control block and device
 * slots on the device of its node rank, and maps its right neighbour's. A rank's descriptor is its
 * control block's path and its slots' IPC handle.
 *
 * @param directory where the control blocks are made
 * @param position this rank's node rank
 * @param nodeSize ranks in the node
 * @param slots slots of each rank
 * @param slotBytes bytes of each slot: the largest chunk of a device call
 */
public record CudaRingTransport(Path directory, int position, int nodeSize, int slots, int slotBytes)
        implements NodeTransport<CudaRingMember, CudaRingMember> {
    /** Between a control block's path and its slots' IPC handle in a descriptor (not in Base64). */
    private static final char SEPARATOR = '|';

    @Override
    public String name() {
        return "the node's CUDA ring";
    }

    @Override
    public CudaRingMember setUp() throws IOException {
        return CudaRingMember.create(
                directory, position, nodeSize, CudaDevices.get().deviceForLocalRank(position), slots, slotBytes);
    }

    @Override
    public String descriptor(final CudaRingMember member) {
        return descriptor(member.controlPath().toString(), member.slotDescriptor());
    }

    @Override
    public CudaRingMember connect(final CudaRingMember member, final String[] descriptors) throws IOException {
        final String[] paths = new String[descriptors.length];
        final byte[] handles = new byte[descriptors.length * IpcDescriptor.BYTES];
        decode(descriptors, paths, handles);
        // Devices go round-robin by node rank, so each rank knows its neighbour's without asking it.
        PeerAccess.require(
                JCudaCalls.INSTANCE,
                member.position(),
                member.device(),
                member.rightRank(),
                CudaDevices.get().deviceForLocalRank(member.rightRank()));
        member.connect(paths, handles);
        return member;
    }

    @Override
    public void unlink(final CudaRingMember member) throws IOException {
        member.unlinkControl();
    }

    /** A rank's descriptor: its control block's path, then its slots' IPC descriptor. */
    static String descriptor(final String controlPath, final byte[] slotDescriptor) {
        return controlPath + SEPARATOR + Base64.getEncoder().encodeToString(slotDescriptor);
    }

    /**
     * Splits the node's descriptors into the control blocks' paths and, at {@code p * IpcDescriptor.BYTES}
     * of {@code slots}, node rank {@code p}'s slot descriptor.
     *
     * @throws IllegalArgumentException for a descriptor that {@link #descriptor(String, byte[])} did not make
     */
    static void decode(final String[] descriptors, final String[] paths, final byte[] slots) {
        for (int p = 0; p < descriptors.length; p++) {
            final int cut = descriptors[p].lastIndexOf(SEPARATOR);
            final byte[] handle = cut < 0 ? null : Base64.getDecoder().decode(descriptors[p].substring(cut + 1));
            if (handle == null || handle.length != IpcDescriptor.BYTES) {
                throw new IllegalArgumentException(
                        "node rank " + p + " sent no CUDA ring descriptor: '" + descriptors[p] + "'");
            }
            paths[p] = descriptors[p].substring(0, cut);
            System.arraycopy(handle, 0, slots, p * IpcDescriptor.BYTES, IpcDescriptor.BYTES);
        }
    }
}
