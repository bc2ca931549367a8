package org.hbcast.bench.gpu;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaMemcpyKind;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastExplanation;
import org.hbcast.HierarchicalBcast;
import org.hbcast.bench.MpiCommand;
import org.hbcast.bench.OsuBcast;
import org.hbcast.device.CudaContext;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.CudaException;
import org.hbcast.device.DeviceBuffer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Device-buffer broadcast as a GPU program meets it, what {@code UserProbe} is for host memory: each
 * rank's own {@link DeviceBuffer}, an instance made with {@code HierarchicalBcast.create} (a fresh
 * cache is the launcher's), a few warm-up calls, then short blocks of back-to-back calls after a
 * barrier, the columns interleaved block by block; a block's time is the slowest rank's per call,
 * the figure the median over blocks. Beside the library: the staging a user writes by hand (device
 * to host, Open MPI's {@code bcast}, host to device, into the program's own host memory), the library
 * again (the run's A/A floor), and the one-GPU copy bound: the receivers' device-to-device copies of
 * the message, timed in one process, shared by the GPUs there are. After each size every receiver
 * checks the bytes it got; a wrong byte fails the run and no figure of it counts.
 *
 * <pre>scripts/hbrun -n 4 org.hbcast.bench.gpu.DeviceProbe -m 1:268435456</pre>
 */
@Command(
        name = "device-probe",
        mixinStandardHelpOptions = true,
        description = "Device-buffer broadcast as programs call it, beside hand-written staging and the copy bound.")
public final class DeviceProbe implements Callable<Integer> {
    @Option(
            names = {"-m", "--message-size"},
            paramLabel = "[MIN:]MAX",
            description = "sizes in bytes (default 1:268435456)")
    String sizes = "1:268435456";

    @Option(names = "--factor", description = "each size this many times the last (default 4)")
    int factor = 4;

    @Option(names = "--blocks", description = "blocks per column and size (default 5)")
    int blocks = 5;

    @Option(names = "--calls", description = "calls per block (default 10)")
    int calls = 10;

    @Option(
            names = "--large-calls",
            description = "calls per block past --large-from, where one call lasts milliseconds (default 3)")
    int largeCalls = 3;

    @Option(names = "--large-from", description = "bytes past which blocks take --large-calls (default 16777216)")
    long largeFrom = 16L << 20;

    @Option(names = "--warmup", description = "warm-up calls per column and size (default 3)")
    int warmup = 3;

    @Option(
            names = "--settle",
            description = "untimed library calls of each size before its warm-up, so that the in-run trials"
                    + " (from a size's call 129 on) decide first: 220 lets every size decide (default 0: the"
                    + " figures are a program's first calls, the model's plan or what an earlier run kept)")
    int settle = 0;

    /** The columns timed, in the order of the table; the first is the reference. */
    static final String[] COLUMNS = {"staging", "hbcast", "hbcast again"};

    private static final int STAGING = 0;
    private static final int CHECKED_BYTES = 4096;

    private Intracomm world;
    private int rank;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new DeviceProbe(), args);
    }

    @Override
    public Integer call() throws Exception {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        CommandLine cli = new CommandLine(this);
        List<Long> list;
        try {
            long[] range = OsuBcast.parseSizes(sizes);
            list = sizes(range[0], range[1], factor);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cli, e.getMessage());
        }
        if (blocks < 1 || calls < 1 || largeCalls < 1 || warmup < 0 || settle < 0) {
            throw new CommandLine.ParameterException(
                    cli,
                    "--blocks, --calls and --large-calls must be at least 1 and --warmup and --settle at least 0,"
                            + " not " + blocks + ", " + calls + ", " + largeCalls + ", " + warmup + ", " + settle);
        }
        CudaDevices devices = CudaDevices.get();
        if (!devices.available()) {
            if (rank == 0) {
                System.out.println("# device-probe skipped: no CUDA device: " + devices.unavailableReason());
            }
            return 2;
        }
        long largest = list.get(list.size() - 1);
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            int device = devices.deviceForLocalRank(hb.topology().position());
            CudaContext.use(device);
            ByteBuffer host = ByteBuffer.allocateDirect((int) largest);
            try (DeviceBuffer buf = DeviceBuffer.allocate(largest, device)) {
                int gpus = distinctDevices(device);
                if (rank == 0) {
                    PcieRate.Measured pcie = PcieRate.measure(device);
                    System.out.println("# " + pcie.describe());
                    header(devices, gpus);
                }
                int wrong = 0;
                for (long size : list) {
                    double copySeconds = rank == 0 ? deviceCopySeconds(buf, size, device) : 0;
                    double[] us = measure(hb, buf, host, (int) size);
                    wrong += check(buf, (int) size);
                    if (rank == 0) {
                        double boundUs = boundSeconds(copySeconds, world.getSize(), gpus) * 1e6;
                        row(size, us, boundUs, ran(hb, size));
                    }
                }
                int[] all = {wrong};
                world.allReduce(all, 1, MPI.INT, MPI.SUM);
                if (all[0] > 0) {
                    if (rank == 0) {
                        System.out.println("# device-probe: WRONG DATA on " + all[0]
                                + " (rank, size) checks: the figures above do not count");
                    }
                    return 1;
                }
            }
        }
        return 0;
    }

    /** The sizes from {@code min}, each {@code factor} times the last, through {@code max}. */
    static List<Long> sizes(long min, long max, int factor) {
        if (factor < 2) {
            throw new IllegalArgumentException("--factor must be at least 2, not " + factor);
        }
        List<Long> list = new ArrayList<>();
        for (long s = min; s <= max; s *= factor) {
            list.add(s);
        }
        return list;
    }

    /**
     * Seconds the message's copies take at the GPUs' copy rate: each receiver's buffer is written once
     * whatever the schedule, and ranks sharing a GPU share its copy engine, so {@code ranks - 1}
     * copies spread over at most {@code gpus} GPUs.
     */
    static double boundSeconds(double copySeconds, int ranks, int gpus) {
        int receivers = ranks - 1;
        if (receivers == 0) {
            return 0;
        }
        return copySeconds * receivers / Math.min(Math.max(gpus, 1), receivers);
    }

    /** Calls per block at {@code size}. */
    int callsAt(long size) {
        return size > largeFrom ? largeCalls : calls;
    }

    /** The median over blocks of each column's time a call, in microseconds. */
    private double[] measure(HierarchicalBcast hb, DeviceBuffer buf, ByteBuffer host, int size) throws MPIException {
        buf.fill(rank == 0 ? pattern(size) : 0);
        for (int i = 0; i < settle; i++) {
            hb.bcast(buf, size, MPI.BYTE, 0);
        }
        for (int k = 0; k < COLUMNS.length; k++) {
            for (int i = 0; i < warmup; i++) {
                call(k, hb, buf, host, size);
            }
        }
        double[][] times = new double[COLUMNS.length][blocks];
        int n = callsAt(size);
        for (int b = 0; b < blocks; b++) {
            for (int j = 0; j < COLUMNS.length; j++) {
                int k = (j + b) % COLUMNS.length; // rotate so that no column always goes first
                world.barrier();
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    call(k, hb, buf, host, size);
                }
                double[] mine = {(System.nanoTime() - t0) / 1e9 / n};
                world.allReduce(mine, 1, MPI.DOUBLE, MPI.MAX);
                times[k][b] = mine[0];
            }
        }
        double[] us = new double[COLUMNS.length];
        for (int k = 0; k < COLUMNS.length; k++) {
            Arrays.sort(times[k]);
            us[k] = times[k][blocks / 2] * 1e6;
        }
        return us;
    }

    private void call(int column, HierarchicalBcast hb, DeviceBuffer buf, ByteBuffer host, int size)
            throws MPIException {
        if (column != STAGING) {
            hb.bcast(buf, size, MPI.BYTE, 0);
            return;
        }
        // What a user writes without a CUDA-aware MPI: through the program's own host memory.
        Pointer hostPointer = Pointer.to(host);
        if (rank == 0) {
            CudaException.check(
                    JCuda.cudaMemcpy(hostPointer, buf.pointer(), size, cudaMemcpyKind.cudaMemcpyDeviceToHost),
                    "cudaMemcpy device to host");
        }
        world.bcast(host, size, MPI.BYTE, 0);
        if (rank != 0) {
            CudaException.check(
                    JCuda.cudaMemcpy(buf.pointer(), hostPointer, size, cudaMemcpyKind.cudaMemcpyHostToDevice),
                    "cudaMemcpy host to device");
        }
    }

    /** The byte the root broadcasts at {@code size}: differs from the last size's, never 0. */
    static int pattern(long size) {
        return 1 + (Long.numberOfTrailingZeros(size) % 251);
    }

    /** 1 when this receiver's first and last bytes of the message are not the root's, else 0. */
    private int check(DeviceBuffer buf, int size) {
        if (rank == 0) {
            return 0;
        }
        int n = Math.min(size, CHECKED_BYTES);
        byte[] got = new byte[n];
        buf.copyToHost(0, got, n);
        byte[] tail = new byte[n];
        buf.copyToHost(size - n, tail, n);
        byte want = (byte) pattern(size);
        for (int i = 0; i < n; i++) {
            if (got[i] != want || tail[i] != want) {
                System.out.println("# device-probe: rank " + rank + " got byte " + (got[i] != want ? got[i] : tail[i])
                        + " where the root sent " + want + " at " + size + " bytes");
                return 1;
            }
        }
        return 0;
    }

    /** How many distinct devices the ranks' buffers live on (by index: one node's view). */
    private int distinctDevices(int device) throws MPIException {
        int[] all = new int[world.getSize()];
        world.allGather(new int[] {device}, 1, MPI.INT, all, 1, MPI.INT);
        return (int) Arrays.stream(all).distinct().count();
    }

    /** Seconds of one device-to-device copy of {@code size} bytes on this GPU, the median of a few. */
    private double deviceCopySeconds(DeviceBuffer source, long size, int device) {
        try (DeviceBuffer target = DeviceBuffer.allocate(size, device)) {
            double[] t = new double[5];
            for (int i = -2; i < t.length; i++) {
                CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                long t0 = System.nanoTime();
                CudaException.check(
                        JCuda.cudaMemcpy(
                                target.pointer(), source.pointer(), size, cudaMemcpyKind.cudaMemcpyDeviceToDevice),
                        "cudaMemcpy device to device");
                CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
                if (i >= 0) {
                    t[i] = (System.nanoTime() - t0) / 1e9;
                }
            }
            Arrays.sort(t);
            return t[t.length / 2];
        }
    }

    private void header(CudaDevices devices, int gpus) throws MPIException {
        System.out.printf(
                Locale.ROOT,
                "# hbcast device probe: %d ranks on %d GPU(s) %s, %d warm-up calls, median of %d blocks of %d calls"
                        + " (%d past %d bytes), a block's time the slowest rank's%n",
                world.getSize(),
                gpus,
                devices.names(),
                warmup,
                blocks,
                calls,
                largeCalls,
                largeFrom);
        System.out.printf(
                Locale.ROOT,
                "%-12s%16s%16s%18s%16s%12s%14s%14s  %s%n",
                "# Size",
                "staging (us)",
                "hbcast (us)",
                "hbcast again (us)",
                "staging/hbcast",
                "A/A",
                "bound (us)",
                "of bound",
                "plan auto ran (trials)");
    }

    private void row(long size, double[] us, double boundUs, String plan) {
        System.out.printf(
                Locale.ROOT,
                "%-12d%16.2f%16.2f%18.2f%16.3f%12.3f%14.2f%13.1f%%  %s%n",
                size,
                us[0],
                us[1],
                us[2],
                us[0] / us[1],
                us[1] / us[2],
                boundUs,
                100 * boundUs / us[1],
                plan);
    }

    /**
     * The plan {@code auto} ran at {@code size} and the trials' state for it: {@code native} is staging
     * through the host. Without {@code --settle} the probe's calls of a size stay below the trials'
     * first (call 129), so the plan is the model's, or what an earlier run on this fingerprint kept.
     */
    static String ran(HierarchicalBcast hb, long size) {
        BcastExplanation e = hb.explainDevice(size);
        return e.plan().name() + " (" + e.trials() + ")";
    }
}
