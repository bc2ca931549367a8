package org.hbcast.bench.gpu;

import java.util.Locale;
import java.util.concurrent.Callable;
import mpi.MPI;
import org.hbcast.bench.MpiCommand;
import org.hbcast.device.CudaContext;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.IpcHandles;
import org.hbcast.device.JCudaCalls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What mapping a peer's buffer costs: a direct-mode broadcast opens the right neighbour's buffer
 * ({@code cudaIpcOpenMemHandle}) for one call and closes it after, because a user's buffer may be
 * freed as soon as its owner's call returns. Rank 0 allocates, rank 1 maps and unmaps it
 * {@code -i} times; prints the mean of each, in microseconds. Two ranks.
 *
 * <pre>scripts/hbrun -n 2 org.hbcast.bench.gpu.IpcMapCost -m 67108864</pre>
 */
@Command(
        name = "ipc_map_cost",
        mixinStandardHelpOptions = true,
        description = "cudaIpcOpenMemHandle and close, per call.")
public final class IpcMapCost implements Callable<Integer> {
    @Option(names = "-m", description = "buffer size in bytes (default 64 MiB)")
    long bytes = 64L << 20;

    @Option(names = "-i", description = "maps timed (default 50)")
    int iterations = 50;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new IpcMapCost(), args);
    }

    @Override
    public Integer call() throws Exception {
        int rank = MPI.COMM_WORLD.getRank();
        CudaDevices devices = CudaDevices.get();
        if (!devices.available() || MPI.COMM_WORLD.getSize() != 2) {
            if (rank == 0) {
                System.out.println("# ipc_map_cost skipped: needs 2 ranks and a CUDA device ("
                        + devices.unavailableReason() + ")");
            }
            return 2;
        }
        int device = devices.deviceForLocalRank(rank);
        CudaContext.use(device);
        JCudaCalls cuda = JCudaCalls.INSTANCE;
        try (DeviceBuffer buf = DeviceBuffer.allocate(bytes, device)) {
            byte[] handle = new byte[IpcHandles.HANDLE_BYTES];
            if (rank == 0) {
                long t0 = System.nanoTime();
                byte[] h = cuda.ipcGetHandle(device, buf.address());
                long got = System.nanoTime() - t0;
                System.arraycopy(h, 0, handle, 0, h.length);
                System.out.printf(Locale.ROOT, "# cudaIpcGetMemHandle (first, %d bytes): %.1f us%n", bytes, got / 1e3);
            }
            MPI.COMM_WORLD.bcast(handle, handle.length, MPI.BYTE, 0);
            if (rank == 1) {
                for (int i = 0; i < 3; i++) {
                    cuda.ipcClose(device, cuda.ipcOpen(device, handle, 0));
                }
                long open = 0;
                long close = 0;
                for (int i = 0; i < iterations; i++) {
                    long t0 = System.nanoTime();
                    long address = cuda.ipcOpen(device, handle, 0);
                    long t1 = System.nanoTime();
                    cuda.ipcClose(device, address);
                    close += System.nanoTime() - t1;
                    open += t1 - t0;
                }
                System.out.printf(
                        Locale.ROOT,
                        "# cudaIpcOpenMemHandle %.1f us, cudaIpcCloseMemHandle %.1f us (mean of %d, %d bytes)%n",
                        open / 1e3 / iterations,
                        close / 1e3 / iterations,
                        iterations,
                        bytes);
            }
            MPI.COMM_WORLD.barrier();
            hops(cuda, device, buf, rank);
        }
        return 0;
    }

    /**
     * What a hop costs when the two ends are different processes on one GPU: the ranks map each
     * other's buffer once, then pass a chunk of {@code -m} bytes back and forth (copy into the
     * peer's buffer, wait for it, tell the peer over MPI), against rank 0 making both copies itself.
     */
    private void hops(JCudaCalls cuda, int device, DeviceBuffer buf, int rank) throws Exception {
        byte[] mine = cuda.ipcGetHandle(device, buf.address());
        byte[] theirs = new byte[IpcHandles.HANDLE_BYTES];
        int peer = 1 - rank;
        MPI.COMM_WORLD.sendRecv(mine, mine.length, MPI.BYTE, peer, 7, theirs, theirs.length, MPI.BYTE, peer, 7);
        long peerAddress = cuda.ipcOpen(device, theirs, 0);
        long stream = cuda.streamCreate(device);
        byte[] token = new byte[1];
        try (DeviceBuffer other = DeviceBuffer.allocate(bytes, device)) {
            int rounds = iterations + 5;
            long start = 0;
            for (int i = 0; i < rounds; i++) {
                if (i == 5) {
                    MPI.COMM_WORLD.barrier();
                    start = System.nanoTime();
                }
                if (rank == 0) {
                    cuda.copyAsync(peerAddress, buf.address(), bytes, JCudaCalls.CopyKind.DEVICE_TO_DEVICE, stream);
                    cuda.streamSynchronize(stream);
                    MPI.COMM_WORLD.send(token, 1, MPI.BYTE, 1, 8);
                    MPI.COMM_WORLD.recv(token, 1, MPI.BYTE, 1, 8);
                } else {
                    MPI.COMM_WORLD.recv(token, 1, MPI.BYTE, 0, 8);
                    cuda.copyAsync(peerAddress, buf.address(), bytes, JCudaCalls.CopyKind.DEVICE_TO_DEVICE, stream);
                    cuda.streamSynchronize(stream);
                    MPI.COMM_WORLD.send(token, 1, MPI.BYTE, 0, 8);
                }
            }
            double crossUs = (System.nanoTime() - start) / 1e3 / iterations / 2;
            MPI.COMM_WORLD.barrier();
            if (rank == 0) {
                long t0 = 0;
                for (int i = 0; i < rounds; i++) {
                    if (i == 5) {
                        t0 = System.nanoTime();
                    }
                    cuda.copyAsync(peerAddress, buf.address(), bytes, JCudaCalls.CopyKind.DEVICE_TO_DEVICE, stream);
                    cuda.streamSynchronize(stream);
                    cuda.copyAsync(other.address(), buf.address(), bytes, JCudaCalls.CopyKind.DEVICE_TO_DEVICE, stream);
                    cuda.streamSynchronize(stream);
                }
                double sameUs = (System.nanoTime() - t0) / 1e3 / iterations / 2;
                long t1 = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    long a = cuda.ipcOpen(device, theirs, 0);
                    cuda.copyAsync(a, buf.address(), bytes, JCudaCalls.CopyKind.DEVICE_TO_DEVICE, stream);
                    cuda.streamSynchronize(stream);
                    cuda.ipcClose(device, a);
                }
                double mappedPerCallUs = (System.nanoTime() - t1) / 1e3 / iterations;
                System.out.printf(
                        Locale.ROOT,
                        "# hop of %d bytes: %.1f us between processes (copy, sync, MPI token), %.1f us in one process"
                                + " (copy, sync); map+copy+sync+unmap per call %.1f us%n",
                        bytes,
                        crossUs,
                        sameUs,
                        mappedPerCallUs);
            }
            MPI.COMM_WORLD.barrier();
        } finally {
            cuda.streamDestroy(stream);
            cuda.ipcClose(device, peerAddress);
        }
    }
}
