package org.hbcast.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.HierarchicalBcast;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Broadcast latency the way application code meets it: instances made with
 * {@code HierarchicalBcast.create}, a few warm-up calls, then short blocks of back-to-back calls on
 * one direct buffer, the implementations interleaved block by block. A block's time is the slowest
 * rank's, per call; the figure is the median over blocks. Unlike OSU's per-rank mean, no rank can
 * run ahead of the others, so the figure is the latency of a complete broadcast.
 *
 * <p>Implementations are those of {@code OsuBcast --impl} ({@code ALGORITHM[:COUNTS]}) and {@code mpi},
 * a plain {@code MPI.COMM_WORLD.bcast}. Naming one twice measures it against itself: the A/A noise
 * floor of the run, printed beside the ratios.
 */
@Command(name = "user-probe", description = "Broadcast latency as applications call it: short interleaved blocks.")
public final class UserProbe implements Callable<Integer> {
    @Option(names = {"-m", "--message-size"}, paramLabel = "[MIN:]MAX", description = "sizes in bytes, doubling (default 1:4194304)")
    String sizes = "1:4194304";

    @Option(names = "--impl", split = ",", description = "implementations, the first is the reference (default mpi,auto,mpi)")
    List<String> impls = List.of("mpi", "auto", "mpi");

    @Option(names = "--blocks", description = "blocks per implementation and size (default 7)")
    int blocks = 7;

    @Option(names = "--calls", description = "calls per block (default 20)")
    int calls = 20;

    @Option(names = "--warmup", description = "warm-up calls per implementation and size (default 3)")
    int warmup = 3;

    private Intracomm world;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new UserProbe(), args);
    }

    @Override
    public Integer call() throws Exception {
        world = MPI.COMM_WORLD;
        CommandLine cli = new CommandLine(this);
        long[] range;
        try {
            range = OsuBcast.parseSizes(sizes);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cli, e.getMessage());
        }
        if (blocks < 1 || calls < 1 || warmup < 0) {
            throw new CommandLine.ParameterException(cli, "--blocks and --calls must be at least 1 and --warmup at least"
                    + " 0, not " + blocks + ", " + calls + ", " + warmup);
        }
        List<HierarchicalBcast> instances = new ArrayList<>();
        for (String impl : impls) {
            instances.add(impl.equals("mpi") ? null : HierarchicalBcast.create(world, OsuBcast.options(cli, impl)));
        }
        ByteBuffer buf = ByteBuffer.allocateDirect((int) range[1]);
        int twin = impls.subList(1, impls.size()).indexOf(impls.get(0)) + 1;
        if (world.getRank() == 0) {
            header(twin);
        }
        double[] us = new double[impls.size()];
        double[] blockTimes = new double[blocks];
        for (long size = range[0]; size <= range[1]; size *= 2) {
            double[][] times = new double[impls.size()][blocks];
            for (int k = 0; k < impls.size(); k++) {
                for (int i = 0; i < warmup; i++) {
                    call(instances.get(k), buf, (int) size);
                }
            }
            for (int b = 0; b < blocks; b++) {
                for (int j = 0; j < impls.size(); j++) {
                    int k = (j + b) % impls.size();   // rotate so that no implementation always goes first
                    times[k][b] = block(instances.get(k), buf, (int) size);
                }
            }
            for (int k = 0; k < impls.size(); k++) {
                System.arraycopy(times[k], 0, blockTimes, 0, blocks);
                Arrays.sort(blockTimes);
                us[k] = blockTimes[blocks / 2] * 1e6;
            }
            if (world.getRank() == 0) {
                row(size, us, twin);
            }
        }
        for (HierarchicalBcast hb : instances) {
            if (hb != null) {
                hb.close();
            }
        }
        return 0;
    }

    private void call(HierarchicalBcast hb, ByteBuffer buf, int size) throws MPIException {
        if (hb == null) {
            world.bcast(buf, size, MPI.BYTE, 0);
        } else {
            hb.bcast(buf, size, MPI.BYTE, 0);
        }
    }

    /** Seconds per call of one block, the slowest rank's. */
    private double block(HierarchicalBcast hb, ByteBuffer buf, int size) throws MPIException {
        world.barrier();
        long t0 = System.nanoTime();
        for (int i = 0; i < calls; i++) {
            call(hb, buf, size);
        }
        double[] mine = {(System.nanoTime() - t0) / 1e9 / calls};
        world.allReduce(mine, 1, MPI.DOUBLE, MPI.MAX);
        return mine[0];
    }

    private void header(int twin) throws MPIException {
        System.out.printf(Locale.ROOT, "# hbcast user-style probe: %d ranks, %d warm-up calls, median of %d blocks of %d"
                + " calls, a block's time the slowest rank's%n", world.getSize(), warmup, blocks, calls);
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-10s", "# Size"));
        for (String impl : impls) {
            sb.append(String.format(Locale.ROOT, "%22s", impl + " (us)"));
        }
        for (int k = 1; k < impls.size(); k++) {
            sb.append(String.format(Locale.ROOT, "%" + ratioWidth(k) + "s", impls.get(0) + "/" + impls.get(k)));
        }
        if (twin > 0) {
            sb.append("   (A/A: column ").append(impls.get(0)).append('/').append(impls.get(twin)).append(')');
        }
        System.out.println(sb);
    }

    /** Width of ratio column {@code k}: its label and two spaces, at least 12. */
    private int ratioWidth(int k) {
        return Math.max(12, impls.get(0).length() + impls.get(k).length() + 3);
    }

    private void row(long size, double[] us, int twin) {
        StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%-10d", size));
        for (double u : us) {
            sb.append(String.format(Locale.ROOT, "%22.2f", u));
        }
        for (int k = 1; k < us.length; k++) {
            sb.append(String.format(Locale.ROOT, "%" + ratioWidth(k) + ".3f", us[0] / us[k]));
        }
        System.out.println(sb);
    }
}
