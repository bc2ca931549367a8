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
import mpi.Request;
import mpi.Status;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.tuning.Candidates;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Measures the link bound of a multi-host layout: a stream of large messages between rank 0 and the
 * first rank of another host, timed until that rank's acknowledgement, and the one-way latency of a
 * ping-pong. No broadcast can deliver a message to a host faster than that host's link carries it,
 * so {@code size / bandwidth} is the bound the comparison's fractions are taken of. The other ranks
 * wait in a barrier, so the two hosts' links carry nothing else.
 *
 * <p>On three hosts or more it also measures every link at once: the first ranks of all hosts relay
 * a stream down a chain, each forwarding a message while it receives the next, with Open MPI's
 * point-to-point calls only. A real cluster's hosts drive their links with cores of their own; the
 * test bed's hosts share this machine's, so a broadcast that keeps every link busy may be limited by
 * the cores rather than the links. The relay's rate per link says how far: it is what the bed
 * delivers to a schedule that uses every link at once, with no broadcast code in the way.
 */
@Command(
        name = "link-probe",
        mixinStandardHelpOptions = true,
        description = "Point-to-point bandwidth and latency between two hosts: the link bound of a broadcast.")
public final class LinkProbe implements Callable<Integer> {
    private static final int TAG = 77;
    /** Buffers each host of the relay cycles through, so forwards overlap the next receives. */
    private static final int RELAY_BUFFERS = 4;

    @Option(names = "--bytes", description = "bytes of each streamed message (default 4 MiB)")
    int bytes = 4 << 20;

    @Option(names = "--count", description = "messages per stream (default 8)")
    int count = 8;

    @Option(names = "--repeat", description = "streams; the fastest counts (default 3)")
    int repeat = 3;

    /**
     * Messages within Open MPI's TCP eager limit, as hbcast's chunks across a network no calibration
     * timed (a larger one waits for its receiver to ask for it). The relay carried about the same in
     * either size on the beds (72-90% of the two-host rate), below what hbcast's chain reaches there.
     */
    @Option(
            names = "--relay-bytes",
            description = "bytes of each message the chain relays (default 65472, within Open MPI's TCP eager limit)")
    int relayBytes = Candidates.NETWORK_EAGER_CHUNK_BYTES;

    @Option(names = "--relay-count", description = "messages the chain relays (default 256)")
    int relayCount = 256;

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
        int[] chain;
        try (Topology topo = Topology.discover(OpenMpi.comm(world), null)) {
            if (topo.layout().nodeCount() < 2) {
                if (rank == 0) {
                    System.err.println("link-probe: every rank runs on one host: there is no link to measure");
                }
                return 3;
            }
            peer = topo.layout().rankAt(1, 0);
            hostA = topo.processorName(0);
            hostB = topo.processorName(peer);
            chain = new int[topo.layout().nodeCount()];
            for (int h = 0; h < chain.length; h++) {
                chain[h] = topo.layout().rankAt(h, 0);
            }
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
        double relayed = Double.NaN;
        if (chain.length > 2) {
            double seconds = relay(chain, rank);
            if (rank == 0) {
                // The stream's last message reaches the last host after crossing every link; the
                // first message's trip down the chain (each host holds a whole message before it
                // forwards it) is the fill, at the two-host rate.
                double fill = (chain.length - 2) * (double) relayBytes / best + (chain.length - 1) * latency;
                relayed = (double) relayBytes * relayCount / Math.max(seconds - fill, 1e-9);
            }
        }
        world.barrier();
        if (rank == 0) {
            if (chain.length > 2) {
                System.out.printf(
                        Locale.ROOT,
                        "# all %d hosts' links at once (a relay down a chain of %d x %d B): %.1f MB/s per link, %.0f%%"
                                + " of the two-host figure%n",
                        chain.length,
                        relayCount,
                        relayBytes,
                        relayed / 1e6,
                        100 * relayed / best);
            }
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
                if (chain.length > 2) {
                    doc.put("relayHosts", chain.length);
                    doc.put("relayBytesPerSecond", relayed);
                }
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

    /**
     * Relays {@link #relayCount} messages down the chain of hosts' first ranks: each receives a message
     * and forwards it while it receives the next ({@link #RELAY_BUFFERS} buffers in turn). Returns, on the chain's first
     * rank, the seconds until the last host acknowledged the last message; others return 0.
     */
    private double relay(int[] chain, int rank) throws MPIException {
        var world = MPI.COMM_WORLD;
        int pos = -1;
        for (int i = 0; i < chain.length; i++) {
            if (chain[i] == rank) {
                pos = i;
            }
        }
        int prev = pos > 0 ? chain[pos - 1] : -1;
        int next = pos >= 0 && pos < chain.length - 1 ? chain[pos + 1] : -1;
        ByteBuffer[] bufs = new ByteBuffer[pos < 0 ? 0 : RELAY_BUFFERS];
        Request[] sends = new Request[bufs.length];
        for (int b = 0; b < bufs.length; b++) {
            bufs[b] = ByteBuffer.allocateDirect(relayBytes);
        }
        ByteBuffer ack = ByteBuffer.allocateDirect(1);
        world.barrier();
        if (pos < 0) {
            return 0;
        }
        long t0 = System.nanoTime();
        // A blocking receive, then the forward left in flight: posting receives further ahead measured
        // slower over Open MPI's TCP transport (71% against 83% of the two-host rate on 8 hosts).
        for (int i = 0; i < relayCount; i++) {
            int b = i % bufs.length;
            if (sends[b] != null) {
                sends[b].waitFor();
                sends[b].free();
                sends[b] = null;
            }
            if (prev >= 0) {
                world.recv(bufs[b], relayBytes, MPI.BYTE, prev, TAG);
            }
            if (next >= 0) {
                sends[b] = world.iSend(bufs[b], relayBytes, MPI.BYTE, next, TAG);
            }
        }
        for (Request r : sends) {
            if (r != null) {
                r.waitFor();
                r.free();
            }
        }
        if (next < 0) {
            world.send(ack, 1, MPI.BYTE, chain[0], TAG + 1);
        } else if (pos == 0) {
            world.recv(ack, 1, MPI.BYTE, chain[chain.length - 1], TAG + 1);
        }
        return (System.nanoTime() - t0) / 1e9;
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
