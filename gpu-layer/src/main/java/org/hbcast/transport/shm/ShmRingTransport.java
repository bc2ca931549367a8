package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import org.hbcast.transport.NodeTransport;

/**
 * The node's shared-memory ring as a {@link NodeTransport}: every rank makes its inbox and maps its
 * right neighbour's.
 *
 * @param directory where the inboxes are made
 * @param position this rank's node rank
 * @param slots slots of each inbox
 * @param slotBytes bytes of each slot: the largest chunk a plan sends over the ring
 */
public record ShmRingTransport(Path directory, int position, int slots, int slotBytes)
        implements NodeTransport<ShmInbox, ShmRingLinks> {
    @Override
    public String name() {
        return "the node's shared-memory ring";
    }

    @Override
    public ShmInbox setUp() throws IOException {
        return ShmInbox.create(directory, position, slots, slotBytes);
    }

    @Override
    public String descriptor(final ShmInbox inbox) {
        return inbox.path().toString();
    }

    @Override
    public ShmRingLinks connect(final ShmInbox inbox, final String[] descriptors) throws IOException {
        return ShmRingLinks.connect(inbox, descriptors, position);
    }

    @Override
    public void unlink(final ShmInbox inbox) throws IOException {
        inbox.unlink();
    }
}
