package org.hbcast.call;

import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.port.MpiFailure;

/**
 * Checks the arguments of a device broadcast on this rank, before anything is sent. Allocates
 * nothing when they are good: every message is built in the branch that throws it.
 */
public final class DeviceArguments {
    private DeviceArguments() {}

    /**
     * The message's size in bytes.
     *
     * @param element the program's datatype, or null for one hbcast does not broadcast
     * @param unsupported where {@code element} is null, the program's datatype as messages name it
     * @throws MpiFailure naming the bad argument, or saying why there is no CUDA device
     */
    public static long check(
            DeviceBuffer buf,
            int count,
            ElementType element,
            String unsupported,
            int root,
            int rank,
            int size,
            int nodeRank)
            throws MpiFailure {
        CudaDevices devices = CudaDevices.get();
        if (buf == null) {
            // A literal null resolves to this overload; it gets the host overload's message.
            throw refused(
                    rank,
                    "buffer is null"
                            + (devices.available()
                                    ? ""
                                    : " (and no CUDA device: " + devices.unavailableReason() + ")"));
        }
        if (!devices.available()) {
            throw refused(rank, "no CUDA device: " + devices.unavailableReason());
        }
        if (element == null) {
            throw refused(rank, "datatype " + unsupported + " is not supported by hbcast: use " + Message.SUPPORTED);
        }
        if (root < 0 || root >= size) {
            throw refused(rank, "root " + root + " is out of range: the communicator has ranks 0.." + (size - 1));
        }
        if (count < 0) {
            throw refused(rank, "count " + count + " is negative");
        }
        if (buf.isClosed()) {
            throw refused(rank, buf.isUserMemory() ? "device buffer has been closed" : "device buffer has been freed");
        }
        // The program's own memory: what CUDA said of it when described, and that it is still that allocation.
        String problem = buf.userMemoryProblem();
        if (problem != null) {
            throw refused(rank, problem);
        }
        int device = devices.deviceForLocalRank(nodeRank);
        if (buf.device() != device) {
            throw refused(
                    rank,
                    "the device buffer is on device " + buf.device() + " but this rank (node rank "
                            + nodeRank + ") works on device " + device + ": devices go round-robin by node rank"
                            + " (CudaDevices.deviceForLocalRank)");
        }
        long need = (long) count * element.bytes();
        if (need > Message.MAX_BYTES) {
            throw refused(
                    rank,
                    "count " + count + " of " + element.mpiName() + " is " + need + " bytes, above hbcast's limit of "
                            + Message.MAX_BYTES + " per call");
        }
        if (need > buf.bytes()) {
            throw refused(
                    rank,
                    "count " + count + " of " + element.mpiName() + " needs " + need
                            + " bytes but the device buffer holds " + buf.bytes());
        }
        return need;
    }

    private static MpiFailure refused(int rank, String why) {
        return MpiErrors.badArgument("hbcast bcast on rank " + rank + ": " + why);
    }
}
