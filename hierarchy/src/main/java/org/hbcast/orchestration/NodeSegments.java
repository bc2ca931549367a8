package org.hbcast.orchestration;

import mpi.Intracomm;
import mpi.MPIException;
import org.hbcast.transport.shm.CallBoard;
import org.hbcast.transport.shm.ShmFanout;

/** The node-wide shared segments, each wired up over the node communicator by {@link NodeShared}. */
final class NodeSegments {
    private NodeSegments() {
    }

    /** The node's fan-out segment. Collective over {@code nodeComm} (at least two ranks). */
    static ShmFanout fanout(Intracomm nodeComm, int slots, int maxChunkBytes) throws MPIException {
        int size = nodeComm.getSize();
        int position = nodeComm.getRank();
        return NodeShared.connect(nodeComm, "fan-out segment",
                dir -> ShmFanout.create(dir, 0, size, slots, maxChunkBytes),
                path -> ShmFanout.open(path, position, size), ShmFanout::path, ShmFanout::unlink);
    }

    /** The node's board of call headers. Collective over {@code nodeComm}. */
    static CallBoard board(Intracomm nodeComm) throws MPIException {
        int size = nodeComm.getSize();
        int position = nodeComm.getRank();
        return NodeShared.connect(nodeComm, "call board", dir -> CallBoard.create(dir, 0, size),
                path -> CallBoard.open(path, position, size), CallBoard::path, CallBoard::unlink);
    }
}
