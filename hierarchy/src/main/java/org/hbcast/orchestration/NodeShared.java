package org.hbcast.orchestration;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Function;
import mpi.Intracomm;
import mpi.MPIException;
import org.hbcast.transport.shm.SharedSegment;
import org.hbcast.mpi.StringExchange;

/**
 * Wires up one shared-memory segment per node over the node communicator: node rank 0 creates it,
 * every rank maps it, and once all have, the file is unlinked so nothing is left in
 * {@code /dev/shm} even if the job is killed later. Every rank fails alike if one cannot.
 */
final class NodeShared {
    /** Room for a segment path in the exchange. */
    private static final int PATH_BYTES = 512;

    /** Makes the segment (node rank 0). */
    interface Creator<T> {
        T create(Path directory) throws IOException;
    }

    /** Maps the segment node rank 0 made. */
    interface Opener<T> {
        T open(Path path) throws IOException;
    }

    /** Removes the segment's file (node rank 0, once every rank has mapped it). */
    interface Unlinker<T> {
        void unlink(T segment) throws IOException;
    }

    private NodeShared() {
    }

    /**
     * Collective over {@code nodeComm}; {@code what} names the segment in errors, {@code path} says
     * where node rank 0's segment lives.
     */
    static <T extends AutoCloseable> T connect(Intracomm nodeComm, String what, Creator<T> creator, Opener<T> opener,
            Function<T, Path> path, Unlinker<T> unlinker) throws MPIException {
        int position = nodeComm.getRank();
        T created = null;
        String failure = null;
        if (position == 0) {
            try {
                created = creator.create(SharedSegment.DEFAULT_DIRECTORY);
            } catch (IOException | RuntimeException e) {
                failure = "cannot create the node's " + what + " in " + SharedSegment.DEFAULT_DIRECTORY + ": "
                        + e.getMessage();
            }
        }
        NodeSetup.agreeOrFail(nodeComm, failure, created);

        String where = StringExchange.allGather(nodeComm, position == 0 ? path.apply(created).toString() : "",
                PATH_BYTES)[0];
        T mine = created;
        if (position != 0) {
            try {
                mine = opener.open(Path.of(where));
            } catch (IOException | RuntimeException e) {
                failure = "cannot map the node's " + what + " " + where + ": " + e.getMessage();
            }
        }
        NodeSetup.agreeOrFail(nodeComm, failure, mine);
        if (position == 0) {
            try {
                unlinker.unlink(mine);
            } catch (IOException e) {
                // close() removes a name that is still there; the segment works either way.
            }
        }
        return mine;
    }
}
