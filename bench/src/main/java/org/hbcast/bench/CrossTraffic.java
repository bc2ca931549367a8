package org.hbcast.bench;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.bench.report.ComparisonMerge;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What one small message beside a broadcast costs Open MPI's own broadcast: no hbcast code runs.
 * Before each call of {@code MPI.COMM_WORLD.bcast} from rank 0, rank {@code --from} sends 64 bytes
 * to rank {@code --to}, which waits for them before it calls: as an MPI message ({@code mpi}), a UDP
 * datagram outside MPI ({@code udp}), or a flag in shared memory ({@code shm}, only where both ranks
 * share {@code /dev/shm}, as a test bed's hosts do); {@code alone} sends nothing. That is the shape
 * of hbcast's call header in front of Open MPI's bcast (its {@code native} plan), without hbcast.
 *
 * <p>Why: on the 2-host test bed (a core per host) a header from the root to the other host's
 * leader made the bcast behind it 1.4-1.7x slower at 1-2 MiB, far more than the header's own hop.
 * If a UDP datagram costs the same and a shared-memory flag does not, the cost is the bed's
 * (another process's packet crossing while one process streams the bulk), not MPI's or hbcast's.
 *
 * <p>Kinds run in short blocks after a barrier, interleaved, as {@link UserProbe} runs
 * implementations; a block's time is the slowest rank's; the figure is the median over blocks.
 * Naming {@code alone} twice gives the run's A/A floor. Each row also gives the CPU time a call
 * of the rank that used most (its main thread: system time included, where the kernel's TCP work
 * and single-copy reads are charged).
 */
@Command(
        name = "cross-traffic",
        mixinStandardHelpOptions = true,
        description = "Open MPI's bcast alone and behind one small message by MPI, UDP or shared memory.")
public final class CrossTraffic implements Callable<Integer> {
    /** Bytes of the side message: a call header's size. */
    static final int SIDE_BYTES = 64;

    /** Tag of the side message sent by MPI. */
    private static final int SIDE_TAG = 77;

    private static final List<String> KINDS = List.of("alone", "mpi", "udp", "shm");

    @Option(
            names = {"-m", "--message-size"},
            paramLabel = "[MIN:]MAX",
            description = "bcast sizes in bytes, doubling (default 1048576)")
    String sizes = "1048576";

    @Option(names = "--from", description = "rank that sends the side message (default 0, the root)")
    int from = 0;

    @Option(names = "--to", description = "rank that waits for it before its bcast (default: size / 2)")
    Integer to;

    @Option(
            names = "--kinds",
            split = ",",
            description =
                    "side messages: alone, mpi, udp, shm; the first is the reference (default alone,mpi,udp,shm,alone)")
    List<String> kinds = List.of("alone", "mpi", "udp", "shm", "alone");

    @Option(names = "--blocks", description = "blocks per kind and size (default 9)")
    int blocks = 9;

    @Option(names = "--calls", description = "calls per block (default 20)")
    int calls = 20;

    private static final VarHandle FLAG = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private Intracomm world;
    private int rank;
    /** The rank that waits for the side message: {@code --to}, or half the ranks. */
    private int dest;

    private ByteBuffer side;
    private DatagramChannel udp;
    private InetSocketAddress udpPeer;
    private MappedByteBuffer flag;
    private long flagSeq;
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();

    public static void main(String[] args) throws Exception {
        MpiCommand.run(new CrossTraffic(), args);
    }

    @Override
    public Integer call() throws Exception {
        world = MPI.COMM_WORLD;
        rank = world.getRank();
        int size = world.getSize();
        CommandLine cli = new CommandLine(this);
        long[] range = OsuBcast.sizesOption(cli, sizes);
        dest = to == null ? size / 2 : to;
        if (size < 2 || from < 0 || from >= size || dest < 0 || dest >= size || from == dest) {
            throw new CommandLine.ParameterException(
                    cli, "--from and --to must be two different ranks of " + size + ", not " + from + " and " + dest);
        }
        if (blocks < 1 || calls < 1) {
            throw new CommandLine.ParameterException(cli, "--blocks and --calls must be at least 1");
        }
        for (String k : kinds) {
            if (!KINDS.contains(k)) {
                throw new CommandLine.ParameterException(cli, "--kinds: no kind '" + k + "' (alone, mpi, udp, shm)");
            }
        }
        side = MPI.newByteBuffer(SIDE_BYTES);
        ByteBuffer buf = MPI.newByteBuffer((int) range[1]);
        Path flagFile = null;
        try {
            if (kinds.contains("udp")) {
                openUdp();
            }
            if (kinds.contains("shm")) {
                flagFile = openFlag();
            }
            if (rank == 0) {
                System.out.printf(
                        Locale.ROOT,
                        "# cross traffic: Open MPI's bcast from rank 0 on %d ranks; before each call rank %d sends %d"
                                + " bytes to rank %d, which waits for them; median of %d blocks of %d calls, a block's"
                                + " time the slowest rank's%n",
                        size,
                        from,
                        SIDE_BYTES,
                        dest,
                        blocks,
                        calls);
                System.out.printf(
                        Locale.ROOT,
                        "%-10s %-6s %12s %10s %26s%n",
                        "# Size",
                        "kind",
                        "us a call",
                        "/" + kinds.get(0),
                        "busiest rank's cpu a call");
            }
            for (long bytes = range[0]; bytes <= range[1]; bytes *= 2) {
                measure(buf, (int) bytes);
            }
        } finally {
            if (udp != null) {
                udp.close();
            }
            world.barrier();
            if (flagFile != null && rank == from) {
                Files.deleteIfExists(flagFile);
            }
        }
        return 0;
    }

    private void measure(ByteBuffer buf, int bytes) throws MPIException, IOException {
        double[][] times = new double[kinds.size()][blocks];
        double[][] cpu = new double[kinds.size()][blocks];
        for (int b = 0; b < blocks; b++) {
            for (int j = 0; j < kinds.size(); j++) {
                int k = (j + b) % kinds.size(); // no kind always first
                for (int w = 0; w < 3; w++) {
                    call(kinds.get(k), buf, bytes);
                }
                world.barrier();
                long cpu0 = threads.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                for (int c = 0; c < calls; c++) {
                    call(kinds.get(k), buf, bytes);
                }
                double[] mine = {
                    (System.nanoTime() - t0) / 1e3 / calls, (threads.getCurrentThreadCpuTime() - cpu0) / 1e3 / calls
                };
                double[] slowest = new double[2];
                world.allReduce(mine, slowest, 2, MPI.DOUBLE, MPI.MAX);
                times[k][b] = slowest[0];
                cpu[k][b] = slowest[1];
            }
        }
        if (rank == 0) {
            double reference = median(times[0]);
            for (int k = 0; k < kinds.size(); k++) {
                double us = median(times[k]);
                System.out.printf(
                        Locale.ROOT,
                        "%-10d %-6s %12.1f %10.2f %26.1f%n",
                        bytes,
                        kinds.get(k),
                        us,
                        us / reference,
                        median(cpu[k]));
            }
            System.out.flush();
        }
    }

    private static double median(double[] values) {
        return ComparisonMerge.median(Arrays.stream(values).boxed().toList());
    }

    private void call(String kind, ByteBuffer buf, int bytes) throws MPIException, IOException {
        switch (kind) {
            case "mpi" -> {
                if (rank == from) {
                    world.send(side, SIDE_BYTES, MPI.BYTE, dest, SIDE_TAG);
                } else if (rank == dest) {
                    world.recv(side, SIDE_BYTES, MPI.BYTE, from, SIDE_TAG);
                }
            }
            case "udp" -> {
                if (rank == from) {
                    side.clear();
                    udp.send(side, udpPeer);
                } else if (rank == dest) {
                    side.clear();
                    udp.receive(side);
                }
            }
            case "shm" -> {
                if (rank == from || rank == dest) {
                    flagSeq++;
                }
                if (rank == from) {
                    FLAG.setRelease(flag, 0, flagSeq);
                } else if (rank == dest) {
                    while ((long) FLAG.getAcquire(flag, 0) < flagSeq) {
                        Thread.yield();
                    }
                }
            }
            default -> {
                // alone: nothing beside the bcast
            }
        }
        world.bcast(buf, bytes, MPI.BYTE, 0);
    }

    /** The receiver binds a datagram socket on its host's address and tells the sender where it is. */
    private void openUdp() throws IOException, MPIException {
        udp = DatagramChannel.open();
        byte[] where = new byte[256];
        if (rank == dest) {
            udp.bind(new InetSocketAddress(InetAddress.getLocalHost(), 0));
            InetSocketAddress me = (InetSocketAddress) udp.getLocalAddress();
            byte[] text = (me.getAddress().getHostAddress() + " " + me.getPort()).getBytes(StandardCharsets.US_ASCII);
            System.arraycopy(text, 0, where, 0, text.length);
        }
        world.bcast(where, where.length, MPI.BYTE, dest);
        String[] parts = new String(where, StandardCharsets.US_ASCII).trim().split(" ");
        udpPeer = new InetSocketAddress(parts[0], Integer.parseInt(parts[1]));
    }

    /**
     * The sender makes a flag file in {@code /dev/shm} and both map it; the receiver checks that it
     * sees the sender's token there, else the two ranks share no memory and the kind cannot run.
     */
    private Path openFlag() throws IOException, MPIException {
        long[] token = {System.nanoTime() ^ ((long) from << 48)};
        world.bcast(token, 1, MPI.LONG, from);
        Path file = Path.of("/dev/shm", String.format(Locale.ROOT, "hbcast-cross-traffic-%x", token[0]));
        if (rank == from) {
            map(file).putLong(8, token[0]);
        }
        world.barrier();
        int[] shared = {1};
        if (rank == dest) {
            shared[0] = Files.exists(file) && map(file).getLong(8) == token[0] ? 1 : 0;
        }
        world.bcast(shared, 1, MPI.INT, dest);
        if (shared[0] == 0) {
            if (rank == from) {
                Files.deleteIfExists(file);
            }
            throw new IllegalStateException("--kinds shm: ranks " + from + " and " + dest
                    + " share no /dev/shm (separate machines?); use alone, mpi or udp");
        }
        if (rank == from || rank == dest) {
            flag = map(file);
        }
        return file;
    }

    private static MappedByteBuffer map(Path file) throws IOException {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer mapped = channel.map(FileChannel.MapMode.READ_WRITE, 0, 64);
            mapped.order(ByteOrder.nativeOrder());
            return mapped;
        }
    }
}
