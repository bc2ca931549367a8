package org.hbcast.tuning;

import java.util.Locale;

/**
 * A kind of transfer the cost model prices with a start-up time and a bandwidth (see
 * {@link LinkCalibration}).
 */
public enum LinkKind {
    /** hbcast's own shared-memory ring link between two ranks of a node (copy into a slot and out). */
    SHARED_MEMORY,
    /** Open MPI point-to-point between two ranks of one node (its vader transport): flat trees, native. */
    MPI_SHARED_MEMORY,
    /** The device ring: GPU to GPU through CUDA IPC mappings. */
    CUDA_IPC,
    /** Open MPI point-to-point between node leaders on different hosts. */
    NETWORK,
    /** A copy inside one process's host memory (an array message to direct memory and back). */
    HOST_MEMCPY,
    /** Host to device or back over PCIe (staging device buffers for the network). */
    PCIE;

    /** Lower-case, dash-separated name used in fingerprints and files: {@code shared-memory}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
