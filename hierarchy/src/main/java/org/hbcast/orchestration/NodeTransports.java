package org.hbcast.orchestration;

import java.nio.file.Path;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.transport.shm.CallBoard;
import org.hbcast.transport.shm.SharedSegment;
import org.hbcast.transport.shm.ShmFanout;
import org.hbcast.transport.shm.ShmInbox;
import org.hbcast.transport.shm.ShmRingLinks;

/**
 * Connects the node's shared-memory transports through the {@link NodeHandshake}: the ring (each
 * rank makes its inbox and maps its right neighbour's), the fan-out segment and the call board (node
 * rank 0 makes them, the others map them). {@code rank} is the rank in the instance's communicator, for errors.
 */
final class NodeTransports {
    private NodeTransports() {}

    /** The node's ring links. Collective over {@code nodeComm} (at least two ranks). */
    static ShmRingLinks ring(MpiComm nodeComm, int rank, int slots, int maxChunkBytes) throws MpiFailure {
        int position = nodeComm.rank();
        return NodeHandshake.connect(
                nodeComm,
                nodeComm,
                "the node's shared-memory ring",
                rank,
                () -> ShmInbox.create(SharedSegment.DEFAULT_DIRECTORY, position, slots, maxChunkBytes),
                inbox -> inbox.path().toString(),
                (inbox, paths) -> ShmRingLinks.connect(inbox, paths, position),
                ShmInbox::unlink);
    }

    /** The node's fan-out segment. Collective over {@code nodeComm} (at least two ranks). */
    static ShmFanout fanout(MpiComm nodeComm, int rank, int slots, int maxChunkBytes) throws MpiFailure {
        int size = nodeComm.size();
        int position = nodeComm.rank();
        return NodeHandshake.connect(
                nodeComm,
                nodeComm,
                "the node's fan-out segment",
                rank,
                () -> position == 0
                        ? ShmFanout.create(SharedSegment.DEFAULT_DIRECTORY, 0, size, slots, maxChunkBytes)
                        : null,
                f -> f.path().toString(),
                (mine, paths) -> mine != null ? mine : ShmFanout.open(Path.of(paths[0]), position, size),
                ShmFanout::unlink);
    }

    /** The node's board of call headers. Collective over {@code nodeComm}. */
    static CallBoard board(MpiComm nodeComm, int rank) throws MpiFailure {
        int size = nodeComm.size();
        int position = nodeComm.rank();
        return NodeHandshake.connect(
                nodeComm,
                nodeComm,
                "the node's call board",
                rank,
                () -> position == 0 ? CallBoard.create(SharedSegment.DEFAULT_DIRECTORY, 0, size) : null,
                b -> b.path().toString(),
                (mine, paths) -> mine != null ? mine : CallBoard.open(Path.of(paths[0]), position, size),
                CallBoard::unlink);
    }
}
