package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import org.hbcast.transport.NodeTransport;

/**
 * The node's board of call headers as a {@link NodeTransport}: node rank 0 makes it, the others map it.
 *
 * @param directory where the segment is made
 * @param position this rank's node rank
 * @param nodeSize ranks in the node
 */
public record CallBoardTransport(Path directory, int position, int nodeSize)
        implements NodeTransport<CallBoard, CallBoard> {
    @Override
    public String name() {
        return "the node's call board";
    }

    @Override
    public CallBoard setUp() throws IOException {
        return position == 0 ? CallBoard.create(directory, 0, nodeSize) : null;
    }

    @Override
    public String descriptor(final CallBoard made) {
        return made.path().toString();
    }

    @Override
    public CallBoard connect(final CallBoard made, final String[] descriptors) throws IOException {
        // The maker faults its pages in now, beside the others mapping theirs.
        return made != null ? made.loadPages() : CallBoard.open(Path.of(descriptors[0]), position, nodeSize);
    }

    @Override
    public void unlink(final CallBoard made) throws IOException {
        made.unlink();
    }
}
