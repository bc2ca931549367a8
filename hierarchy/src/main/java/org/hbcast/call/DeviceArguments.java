package org.hbcast.call;

import mpi.Datatype;
import mpi.MPIException;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;

/** Checks the arguments of a device broadcast on this rank, before anything is sent. */
public final class DeviceArguments {
    private DeviceArguments() {
    }

    /**
     * The message's size in bytes.
     *
     * @throws MPIException naming the bad argument, or saying why there is no CUDA device
     */
    public static long check(DeviceBuffer buf, int count, Datatype type, int root, int rank, int size, int nodeRank)
            throws MPIException {
        String where = "hbcast bcast on rank " + rank + ": ";
        CudaDevices devices = CudaDevices.get();
        if (buf == null) {
            // A literal null resolves to this overload; it gets the host overload's message.
            throw new MPIException(where + "buffer is null"
                    + (devices.available() ? "" : " (and no CUDA device: " + devices.unavailableReason() + ")"));
        }
        if (!devices.available()) {
            throw new MPIException(where + "no CUDA device: " + devices.unavailableReason());
        }
        ElementType element = ElementType.of(type);
        if (element == null) {
            throw new MPIException(where + "datatype " + ElementType.describeUnsupported(type) + " is not supported by hbcast: use BYTE, BOOLEAN,"
                    + " CHAR, SHORT, INT, LONG, FLOAT, DOUBLE, FLOAT_COMPLEX or DOUBLE_COMPLEX");
        }
        if (root < 0 || root >= size) {
            throw new MPIException(where + "root " + root + " is out of range: the communicator has ranks 0.."
                    + (size - 1));
        }
        if (count < 0) {
            throw new MPIException(where + "count " + count + " is negative");
        }
        if (buf.isClosed()) {
            throw new MPIException(where + "device buffer has been freed");
        }
        int device = devices.deviceForLocalRank(nodeRank);
        if (buf.device() != device) {
            throw new MPIException(where + "the device buffer is on device " + buf.device() + " but this rank (node"
                    + " rank " + nodeRank + ") works on device " + device + ": devices go round-robin by node rank"
                    + " (CudaDevices.deviceForLocalRank)");
        }
        long need = (long) count * element.bytes();
        if (need > Message.MAX_BYTES) {
            throw new MPIException(where + "count " + count + " of " + element + " is " + need
                    + " bytes, above hbcast's limit of " + Message.MAX_BYTES + " per call");
        }
        if (need > buf.bytes()) {
            throw new MPIException(where + "count " + count + " of " + element + " needs " + need
                    + " bytes but the device buffer holds " + buf.bytes());
        }
        return need;
    }
}
