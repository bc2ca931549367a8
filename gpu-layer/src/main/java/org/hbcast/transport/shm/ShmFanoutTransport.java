package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import org.hbcast.transport.NodeTransport;

/**
 * The node's fan-out segment as a {@link NodeTransport}: node rank 0 makes it, the others map it.
 *
 * @param directory where the segment is made
 * @param position this rank's node rank
 * @param nodeSize ranks in the node
 * @param slots slots of the segment
 * @param slotBytes bytes of each slot: the largest chunk a plan sends over the fan-out
 */
public record ShmFanoutTransport(Path directory, int position, int nodeSize, int slots, int slotBytes)
        implements NodeTransport<ShmFanout, ShmFanout> {
    @Override
    public String name() {
        return "the node's fan-out segment";
    }

    @Override
    public ShmFanout setUp() throws IOException {
        return position == 0 ? ShmFanout.create(directory, 0, nodeSize, slots, slotBytes) : null;
    }

    @Override
    public String descriptor(final ShmFanout made) {
        return made.path().toString();
    }

    @Override
    public ShmFanout connect(final ShmFanout made, final String[] descriptors) throws IOException {
        // The maker faults its pages in now, beside the others mapping theirs.
        return made != null ? made.loadPages() : ShmFanout.open(Path.of(descriptors[0]), position, nodeSize);
    }

    @Override
    public void unlink(final ShmFanout made) throws IOException {
        made.unlink();
    }
}
