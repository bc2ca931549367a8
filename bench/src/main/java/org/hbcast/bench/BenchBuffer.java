package org.hbcast.bench;

import java.nio.ByteBuffer;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.HierarchicalBcast;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;

/**
 * The message a benchmark broadcasts, wherever it lives: a Java array, a direct buffer, or GPU
 * memory ({@code -d cuda}). Filling and checking (for {@code -c}) happen outside the timed region;
 * for GPU memory they go through a host copy.
 */
abstract class BenchBuffer implements AutoCloseable {
    /**
     * A buffer of {@code bytes} for {@code container} ("arrays" or "buffer") in {@code memory}
     * ("host" or "cuda"); GPU memory goes on the device of node rank {@code nodeRank}.
     */
    static BenchBuffer of(String memory, boolean arrays, int bytes, int nodeRank) {
        return switch (memory) {
            case "host" -> new Host(arrays ? new byte[bytes] : ByteBuffer.allocateDirect(bytes));
            case "cuda" -> {
                CudaDevices devices = CudaDevices.get();
                if (!devices.available()) {
                    throw new IllegalStateException("-d cuda: no CUDA device: " + devices.unavailableReason());
                }
                yield new Cuda(DeviceBuffer.allocate(bytes, devices.deviceForLocalRank(nodeRank)), bytes);
            }
            default -> throw new IllegalArgumentException("-d takes host or cuda, not " + memory);
        };
    }

    abstract void bcast(HierarchicalBcast hb, int size, int root) throws MPIException;

    /** Puts the pattern of {@code iteration} into the first {@code size} bytes. */
    abstract void fill(int size, int iteration);

    /** How many of the first {@code size} bytes differ from the pattern of {@code iteration}. */
    abstract long mismatches(int size, int iteration);

    /** Copies the first {@code size} bytes into {@code dst}, a buffer of the same kind: the memcpy the copy bound uses. */
    abstract void copyInto(BenchBuffer dst, int size);

    @Override
    public void close() {}

    static byte pattern(int i, int iteration) {
        return (byte) (i * 31 + iteration * 7 + 1);
    }

    static long mismatches(byte[] bytes, int size, int iteration) {
        long bad = 0;
        for (int i = 0; i < size; i++) {
            if (bytes[i] != pattern(i, iteration)) {
                bad++;
            }
        }
        return bad;
    }

    /** Host memory: a byte array or a direct ByteBuffer. */
    private static final class Host extends BenchBuffer {
        private final Object buf;

        Host(Object buf) {
            this.buf = buf;
        }

        @Override
        void bcast(HierarchicalBcast hb, int size, int root) throws MPIException {
            hb.bcast(buf, size, MPI.BYTE, root);
        }

        @Override
        void fill(int size, int iteration) {
            for (int i = 0; i < size; i++) {
                if (buf instanceof byte[] a) {
                    a[i] = pattern(i, iteration);
                } else {
                    ((ByteBuffer) buf).put(i, pattern(i, iteration));
                }
            }
        }

        @Override
        long mismatches(int size, int iteration) {
            if (buf instanceof byte[] a) {
                return mismatches(a, size, iteration);
            }
            long bad = 0;
            for (int i = 0; i < size; i++) {
                if (((ByteBuffer) buf).get(i) != pattern(i, iteration)) {
                    bad++;
                }
            }
            return bad;
        }

        @Override
        void copyInto(BenchBuffer dst, int size) {
            Object to = ((Host) dst).buf;
            if (buf instanceof byte[] a) {
                System.arraycopy(a, 0, (byte[]) to, 0, size);
            } else {
                ((ByteBuffer) to).put(0, (ByteBuffer) buf, 0, size);
            }
        }
    }

    /** GPU memory, filled and checked through a host array. */
    private static final class Cuda extends BenchBuffer {
        private final DeviceBuffer device;
        private final byte[] host;

        Cuda(DeviceBuffer device, int bytes) {
            this.device = device;
            this.host = new byte[bytes];
        }

        @Override
        void bcast(HierarchicalBcast hb, int size, int root) throws MPIException {
            hb.bcast(device, size, MPI.BYTE, root);
        }

        @Override
        void fill(int size, int iteration) {
            for (int i = 0; i < size; i++) {
                host[i] = pattern(i, iteration);
            }
            device.copyFromHost(host, 0, size);
        }

        @Override
        long mismatches(int size, int iteration) {
            device.copyToHost(0, host, size);
            return mismatches(host, size, iteration);
        }

        @Override
        void copyInto(BenchBuffer dst, int size) {
            device.copyToDevice(((Cuda) dst).device, size);
        }

        @Override
        public void close() {
            device.close();
        }
    }
}
