package org.hbcast;

import java.io.IOException;
import java.nio.file.Path;
import mpi.Intracomm;
import mpi.MPIException;
import org.hbcast.gpu.shm.SharedSegment;
import org.hbcast.gpu.shm.ShmFanout;
import org.hbcast.mpi.StringExchange;

/**
 * The fan-out segment of this rank's node, wired up over the node communicator: node rank 0 creates
 * it, every rank maps it, and once all have, the file is unlinked so nothing is left in
 * {@code /dev/shm} even if the job is killed later.
 */
final class NodeFanout {
    /** Room for a segment path in the exchange. */
    private static final int PATH_BYTES = 512;

    private NodeFanout() {
    }

    /** Collective over {@code nodeComm} (at least two ranks); every rank fails alike if one cannot map it. */
    static ShmFanout connect(Intracomm nodeComm, int slots, int maxChunkBytes) throws MPIException {
        int position = nodeComm.getRank();
        int size = nodeComm.getSize();
        ShmFanout created = null;
        String failure = null;
        if (position == 0) {
            try {
                created = ShmFanout.create(SharedSegment.DEFAULT_DIRECTORY, 0, size, slots, maxChunkBytes);
            } catch (IOException | RuntimeException e) {
                failure = "cannot create the node's fan-out segment in " + SharedSegment.DEFAULT_DIRECTORY + ": "
                        + e.getMessage();
            }
        }
        NodeSetup.agreeOrFail(nodeComm, failure, created);

        String path = StringExchange.allGather(nodeComm, position == 0 ? created.path().toString() : "", PATH_BYTES)[0];
        ShmFanout mine = created;
        if (position != 0) {
            try {
                mine = ShmFanout.open(Path.of(path), position, size);
            } catch (IOException | RuntimeException e) {
                failure = "cannot map the node's fan-out segment " + path + ": " + e.getMessage();
            }
        }
        NodeSetup.agreeOrFail(nodeComm, failure, mine);
        if (position == 0) {
            try {
                mine.unlink();
            } catch (IOException e) {
                // close() removes a name that is still there; the fan-out works either way.
            }
        }
        return mine;
    }
}
