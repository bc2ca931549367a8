package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The shared-memory rings of one simulated node: every rank's inbox created, exchanged and connected. */
final class ShmTestNode implements AutoCloseable {
    private final ShmRingLinks[] links;

    private ShmTestNode(final ShmRingLinks[] links) {
        this.links = links;
    }

    /** Sets the ring up as production does: create inboxes, exchange paths, connect, then unlink. */
    static ShmTestNode create(final Path directory, final int size, final int slotCount, final int maxChunkBytes)
            throws IOException {
        final ShmInbox[] inboxes = new ShmInbox[size];
        final List<Path> paths = new ArrayList<>(size);
        for (int rank = 0; rank < size; rank++) {
            inboxes[rank] = ShmInbox.create(directory, rank, slotCount, maxChunkBytes);
            paths.add(inboxes[rank].path());
        }
        final ShmRingLinks[] links = new ShmRingLinks[size];
        for (int rank = 0; rank < size; rank++) {
            links[rank] = ShmRingLinks.connect(inboxes[rank], paths, rank);
        }
        for (final ShmRingLinks link : links) {
            link.inbox().unlink();
        }
        return new ShmTestNode(links);
    }

    int size() {
        return links.length;
    }

    ShmRingLinks links(final int rank) {
        return links[rank];
    }

    @Override
    public void close() throws IOException {
        for (final ShmRingLinks link : links) {
            link.close();
        }
    }
}
