package org.hbcast.bench.gpu;

import java.util.Locale;
import java.util.concurrent.Callable;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaMemcpyKind;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.HierarchicalBcast;
import org.hbcast.bench.MpiCommand;
import org.hbcast.device.CudaContext;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.CudaException;
import org.hbcast.device.DeviceBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The CUDA IPC ring's bandwidth against the GPU's own device-to-device copy bandwidth, in one run:
 * rank 0 first times {@code cudaMemcpy} device to device of the message size on its GPU (the
 * ceiling of one hop when ranks share a GPU), then all ranks, on one node, broadcast a device buffer
 * of that size along the ring, and the effective bandwidth is the message size over the slowest
 * rank's time. Prints both and their ratio.
 *
 * <pre>scripts/hbrun -n 4 org.hbcast.bench.gpu.RingBandwidth -m 67108864</pre>
 */
@Command(
        name = "ring_bandwidth",
        mixinStandardHelpOptions = true,
        description = "CUDA IPC ring bandwidth vs device-to-device cudaMemcpy bandwidth, one run.")
public final class RingBandwidth implements Callable<Integer> {
    @Option(names = "-m", description = "message size in bytes (default 64 MiB)")
    long bytes = 64L << 20;

    @Option(names = "-i", description = "timed iterations (default 20)")
    int iterations = 20;

    @Option(names = "-x", description = "warm-up iterations (default 3)")
    int warmup = 3;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new RingBandwidth(), args);
    }

    @Override
    public Integer call() throws Exception {
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        CudaDevices devices = CudaDevices.get();
        if (!devices.available()) {
            if (rank == 0) {
                System.out.println("# ring_bandwidth skipped: no CUDA device: " + devices.unavailableReason());
            }
            return 2;
        }
        if (bytes <= 0 || bytes > Integer.MAX_VALUE - 4096) {
            throw new CommandLine.ParameterException(new CommandLine(this), "-m must be within 1..2^31-4097");
        }
        BcastOptions options =
                BcastOptions.defaults().withAlgorithm(Algorithm.HIERARCHICAL).withNodeSizes(null);
        try (HierarchicalBcast hb = HierarchicalBcast.create(world, options)) {
            int device = CudaDevices.get().deviceForLocalRank(hb.topology().position());
            CudaContext.use(device);
            double copyGBs = 0;
            try (DeviceBuffer buf = DeviceBuffer.allocate(bytes, device)) {
                buf.fill(rank == 0 ? 1 : 0);
                if (rank == 0) {
                    copyGBs = deviceCopyBandwidth(buf, device);
                }
                world.barrier();
                for (int i = 0; i < warmup; i++) {
                    hb.bcast(buf, (int) bytes, MPI.BYTE, 0);
                }
                world.barrier();
                long t0 = System.nanoTime();
                for (int i = 0; i < iterations; i++) {
                    hb.bcast(buf, (int) bytes, MPI.BYTE, 0);
                }
                double[] seconds = {(System.nanoTime() - t0) / 1e9 / iterations};
                double[] slowest = {0};
                world.reduce(seconds, slowest, 1, MPI.DOUBLE, MPI.MAX, 0);
                if (rank == 0) {
                    double ringGBs = bytes / slowest[0] / 1e9;
                    System.out.println("# hbcast CUDA IPC ring bandwidth, " + world.getSize() + " ranks on "
                            + devices.count() + " GPU(s) " + devices.names() + ", " + bytes + " bytes, "
                            + iterations + " iterations, plan " + hb.plan(bytes));
                    // Every receiver's buffer is written once whatever the schedule: ranks sharing a GPU
                    // share its copy rate, so n ranks on g GPUs move the message at most at
                    // d2d * min(g, n - 1) / (n - 1) (one GPU: a copy per receiver, one after another).
                    int receivers = world.getSize() - 1;
                    double boundGBs = copyGBs * Math.min(devices.count(), receivers) / receivers;
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s %16s %16s %12s %16s %12s%n",
                            "# ranks",
                            "d2d_copy_GB/s",
                            "ring_GB/s",
                            "ring/d2d",
                            "shared_bound_GB/s",
                            "ring/bound");
                    System.out.printf(
                            Locale.ROOT,
                            "%-8d %16.2f %16.2f %12.3f %16.2f %12.3f%n",
                            world.getSize(),
                            copyGBs,
                            ringGBs,
                            ringGBs / copyGBs,
                            boundGBs,
                            ringGBs / boundGBs);
                }
            }
        }
        return 0;
    }

    /** Bytes per second of {@code cudaMemcpy} device to device of the message size, in GB/s. */
    private double deviceCopyBandwidth(DeviceBuffer source, int device) {
        try (DeviceBuffer target = DeviceBuffer.allocate(bytes, device)) {
            for (int i = 0; i < warmup + 1; i++) {
                copy(target, source);
            }
            CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            long t0 = System.nanoTime();
            for (int i = 0; i < iterations; i++) {
                copy(target, source);
            }
            CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            return bytes * (double) iterations / ((System.nanoTime() - t0) / 1e9) / 1e9;
        }
    }

    private void copy(DeviceBuffer target, DeviceBuffer source) {
        CudaException.check(
                JCuda.cudaMemcpy(target.pointer(), source.pointer(), bytes, cudaMemcpyKind.cudaMemcpyDeviceToDevice),
                "cudaMemcpy device to device");
    }
}
