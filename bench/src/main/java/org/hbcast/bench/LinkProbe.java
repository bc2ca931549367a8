package org.hbcast.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;
import org.hbcast.mpi.Topology;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Measures the link bound of a multi-host layout: a stream of large messages between rank 0 and the
 * first rank of another host, timed until that rank's acknowledgement, and the one-way latency of a
 * ping-pong. No broadcast can deliver a message to a host faster than that host's link carries it,
 * so {@code size / bandwidth} is the bound the comparison's fractions are taken of. The other ranks
 * wait in a barrier, so the two hosts' links carry nothing else.
 */
@Command(
        name = "link-probe",
        mixinStandardHelpOptions = true,
        description = "Point-to-point bandwidth and latency between two hosts: the link bound of a broadcast.")
public final class LinkProbe implements Callable<Integer> {
    private static final int TAG = 77;

    @Option(names = "--bytes", description = "bytes of each streamed message (default 4 MiB)")
    int bytes = 4 << 20;

    @Option(names = "--count", description = "messages per stream (default 8)")
    int count = 8;

    @Option(names = "--repeat", description = "streams; the fastest counts (default 3)")
    int repeat = 3;

    @Option(names = "--json", description = "also write the figures as JSON (rank 0)")
    Path json;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rc = new CommandLine(new LinkProbe()).execute(args);
        MPI.Finalize();
        System.exit(rc);
    }

    @Override
    public Integer call() throws Exception {
        var world = MPI.COMM_WORLD;
        int rank = world.getRank();
        int peer;
        String hostA;
        String hostB;
        try (Topology topo = Topology.discover(world, null)) {
            if (topo.layout().nodeCount() < 2) {
                if (rank == 0) {
                    System.err.println("link-probe: every rank runs on one host: there is no link to measure");
                }
                return 3;
            }
            peer = topo.layout().rankAt(1, 0);
            hostA = topo.processorName(0);
            hostB = topo.processorName(peer);
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        double latency = Double.NaN;
        double best = 0;
        world.barrier();
        if (rank == 0 || rank == peer) {
            int other = rank == 0 ? peer : 0;
            latency = pingPong(rank == 0, other, buf);
            for (int r = 0; r < repeat; r++) {
                double seconds = stream(rank == 0, other, buf);
                if (rank == 0) {
                    best = Math.max(best, (double) bytes * count / Math.max(seconds - latency, 1e-9));
                }
            }
        }
        world.barrier();
        if (rank == 0) {
            System.out.printf(
                    Locale.ROOT,
                    "# link %s -> %s: latency %.1f us, bandwidth %.1f MB/s (%.3f Gbit/s), streams of %d x %d B%n",
                    hostA,
                    hostB,
                    latency * 1e6,
                    best / 1e6,
                    best * 8 / 1e9,
                    count,
                    bytes);
            if (json != null) {
                Map<String, Object> doc = new LinkedHashMap<>();
                doc.put("from", hostA);
                doc.put("to", hostB);
                doc.put("latencyUs", latency * 1e6);
                doc.put("bytesPerSecond", best);
                doc.put("messageBytes", bytes);
                doc.put("messages", count);
                new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), doc);
            }
        }
        return 0;
    }

    /** One-way latency of a 1-byte message: half the fastest of 50 round trips after 10 untimed ones. */
    private static double pingPong(boolean first, int other, ByteBuffer buf) throws MPIException {
        var world = MPI.COMM_WORLD;
        double best = Double.MAX_VALUE;
        for (int i = -10; i < 50; i++) {
            long t0 = System.nanoTime();
            if (first) {
                world.send(buf, 1, MPI.BYTE, other, TAG);
                world.recv(buf, 1, MPI.BYTE, other, TAG);
            } else {
                world.recv(buf, 1, MPI.BYTE, other, TAG);
                world.send(buf, 1, MPI.BYTE, other, TAG);
            }
            if (i >= 0) {
                best = Math.min(best, (System.nanoTime() - t0) / 2e9);
            }
        }
        return best;
    }

    /** Seconds from the first message's send to the receiver's acknowledgement of the last (sender side). */
    private double stream(boolean sender, int other, ByteBuffer buf) throws MPIException {
        var world = MPI.COMM_WORLD;
        long t0 = System.nanoTime();
        if (sender) {
            for (int i = 0; i < count; i++) {
                world.send(buf, bytes, MPI.BYTE, other, TAG);
            }
            Status ack = world.recv(buf, 1, MPI.BYTE, other, TAG);
            if (ack.getCount(MPI.BYTE) != 1) {
                throw new MPIException("link-probe: the acknowledgement was not one byte");
            }
        } else {
            for (int i = 0; i < count; i++) {
                world.recv(buf, bytes, MPI.BYTE, other, TAG);
            }
            world.send(buf, 1, MPI.BYTE, other, TAG);
        }
        return (System.nanoTime() - t0) / 1e9;
    }
}
