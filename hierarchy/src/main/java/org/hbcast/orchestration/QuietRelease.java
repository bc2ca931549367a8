package org.hbcast.orchestration;

import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;

/**
 * Frees what an instance, or a create that failed, holds: failures are moot when tearing down, so
 * none stops the rest from being freed.
 */
final class QuietRelease {
    private QuietRelease() {}

    /**
     * Frees a communicator of the library's; a failure to free is moot when tearing down. Under the
     * bindings' default error handler a free of a communicator already freed would abort the job, so
     * each is freed on one path only.
     */
    static void freeQuietly(MpiComm c) {
        try {
            c.free();
        } catch (MpiFailure ignored) {
            // Nothing the caller could do about it.
        }
    }

    /** Closes what exists of {@code resources}, then the topology; failures are moot when tearing down. */
    static void closeQuietly(Topology topology, AutoCloseable... resources) {
        for (AutoCloseable resource : resources) {
            try {
                if (resource != null) {
                    resource.close();
                }
            } catch (Exception ignored) {
                // Unmapping cannot fail in a way the caller could act on.
            }
        }
        try {
            if (topology != null) {
                topology.close();
            }
        } catch (MpiFailure ignored) {
            // The communicator is gone either way.
        }
    }
}
