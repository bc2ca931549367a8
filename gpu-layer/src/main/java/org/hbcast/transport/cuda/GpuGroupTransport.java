package org.hbcast.transport.cuda;

import java.io.IOException;
import java.nio.file.Path;
import org.hbcast.device.JCudaCalls;
import org.hbcast.transport.NodeTransport;

/**
 * The node's device transport with one copier per GPU ({@link GpuGroupMember}) as a
 * {@link NodeTransport}: set up once the node's ranks have told each other where their GPUs are
 * ({@link GpuGroupMember#placement}, gathered into {@code groups}). A rank's descriptor is its control
 * block's path and, on a group leader, its ring's control path and slots.
 *
 * @param directory where the control blocks are made
 * @param position this rank's node rank
 * @param device this rank's CUDA device (its process's index)
 * @param groups the node's ranks grouped by GPU
 * @param slots slots of each link
 * @param slotBytes bytes of each slot: the largest chunk of a device call
 */
public record GpuGroupTransport(Path directory, int position, int device, GpuGroups groups, int slots, int slotBytes)
        implements NodeTransport<GpuGroupMember, GpuGroupMember> {
    @Override
    public String name() {
        return "the node's GPU groups";
    }

    @Override
    public GpuGroupMember setUp() throws IOException {
        return GpuGroupMember.create(JCudaCalls.INSTANCE, directory, position, groups, device, slots, slotBytes);
    }

    @Override
    public String descriptor(final GpuGroupMember member) {
        return member.descriptor();
    }

    @Override
    public GpuGroupMember connect(final GpuGroupMember member, final String[] descriptors) throws IOException {
        member.connect(descriptors);
        return member;
    }

    @Override
    public void unlink(final GpuGroupMember member) throws IOException {
        member.unlinkControl();
    }
}
