package org.hbcast.orchestration;

import java.io.IOException;
import mpi.Intracomm;
import mpi.MPIException;
import org.agrona.MutableDirectBuffer;
import org.hbcast.gpu.ring.RingPipeline;
import org.hbcast.gpu.shm.SharedSegment;
import org.hbcast.gpu.shm.ShmInbox;
import org.hbcast.gpu.shm.ShmRingLinks;
import org.hbcast.mpi.StringExchange;

/**
 * The shared-memory ring of this rank's node, wired up over the node communicator: every rank
 * creates its inbox, the paths are all-gathered, every rank maps its right neighbour's inbox, and
 * once all have, every inbox file is unlinked so that nothing is left in {@code /dev/shm} even if
 * the job is killed later.
 */
final class NodeRing implements AutoCloseable {
    /** Room for a segment path in the all-gather. */
    private static final int PATH_BYTES = 512;

    private final ShmRingLinks links;
    private final RingPipeline<MutableDirectBuffer> pipeline;

    private NodeRing(ShmRingLinks links) {
        this.links = links;
        this.pipeline = links.newPipeline();
    }

    /**
     * Collective over {@code nodeComm}. A rank that cannot make or map its segment makes every rank
     * of the node fail with its reason, instead of leaving the others waiting.
     */
    static NodeRing connect(Intracomm nodeComm, int slots, int maxChunkBytes) throws MPIException {
        int position = nodeComm.getRank();
        int size = nodeComm.getSize();
        ShmInbox inbox = null;
        String failure = null;
        try {
            inbox = ShmInbox.create(SharedSegment.DEFAULT_DIRECTORY, position, slots, maxChunkBytes);
        } catch (IOException | RuntimeException e) {
            failure = "cannot create a shared-memory segment in " + SharedSegment.DEFAULT_DIRECTORY + ": " + e.getMessage();
        }
        NodeSetup.agreeOrFail(nodeComm, failure, inbox);

        String[] paths = StringExchange.allGather(nodeComm, inbox.path().toString(), PATH_BYTES);
        ShmRingLinks links = null;
        try {
            links = ShmRingLinks.connect(inbox, paths, position);
        } catch (IOException | RuntimeException e) {
            failure = "cannot map the shared-memory segment of node rank " + (position + 1) % size + ": " + e.getMessage();
        }
        if (links == null && failure == null) {
            failure = "no ring links";
        }
        NodeSetup.agreeOrFail(nodeComm, failure, links != null ? links : inbox);
        // Every rank has mapped its neighbour: the file is no longer needed, and unlinking it now
        // means a crash later leaves nothing in /dev/shm.
        try {
            inbox.unlink();
        } catch (IOException e) {
            // close() unlinks a segment that is still linked; the ring itself works either way.
        }
        return new NodeRing(links);
    }

    RingPipeline<MutableDirectBuffer> pipeline() {
        return pipeline;
    }

    ShmRingLinks links() {
        return links;
    }

    @Override
    public void close() throws IOException {
        links.close();
    }
}
