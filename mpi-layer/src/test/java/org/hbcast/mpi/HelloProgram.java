package org.hbcast.mpi;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.testing.MpiTestProgram;

/**
 * Each rank checks its topology in one case and reports its place in it: figures {@code size},
 * {@code nodes}, {@code node}, {@code pos}, {@code nodeSize}, its real node's {@code hosts},
 * {@code hostPos} and {@code hostSize}, the ranks sharing its machine {@code onMachine}, and notes
 * {@code host} (its processor name) and {@code cores} (the cores it may run on, as Linux lists them).
 */
public final class HelloProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            try (Topology topo = Topology.discover(OpenMpi.comm(world), System.getenv("HBCAST_NODE_SIZES"))) {
                int nodeCommSize = topo.nodeComm().size();
                report.check("node communicator and processor names agree with the layout", () -> agree(topo));
                if (topo.rank() == 0) {
                    System.out.print(topo.report());
                }
                report.figure("size", topo.size())
                        .figure("nodes", topo.layout().nodeCount())
                        .figure("node", topo.node())
                        .figure("pos", topo.position())
                        .figure("nodeSize", nodeCommSize)
                        .figure("hosts", topo.hostLayout().nodeCount())
                        .figure("hostPos", topo.hostPosition())
                        .figure("hostSize", topo.hostComm().size())
                        .figure("onMachine", topo.ranksOnMachine())
                        .note("host", topo.processorName(topo.rank()))
                        .note("cores", allowedCores());
                return String.format(
                        "size=%d nodes=%d node=%d pos=%d nodeSize=%d host=%s",
                        topo.size(),
                        topo.layout().nodeCount(),
                        topo.node(),
                        topo.position(),
                        nodeCommSize,
                        topo.processorName(topo.rank()));
            }
        });
    }

    /** The cores this process may run on ({@code Cpus_allowed_list}, e.g. {@code 0-3}), or {@code ?} off Linux. */
    private static String allowedCores() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return "?";
        }
        return Files.readAllLines(status).stream()
                .filter(l -> l.startsWith("Cpus_allowed_list:"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim())
                .findFirst()
                .orElse("?");
    }

    private static void agree(Topology topo) throws Exception {
        int nodeCommSize = topo.nodeComm().size();
        if (nodeCommSize != topo.layout().nodeSize(topo.node())) {
            throw new AssertionError("node communicator has " + nodeCommSize + " ranks, layout says "
                    + topo.layout().nodeSize(topo.node()));
        }
        if (topo.hostComm().size() != topo.hostLayout().nodeSize(topo.host())
                || topo.hostComm().rank() != topo.hostPosition()) {
            throw new AssertionError(
                    "real node communicator: rank " + topo.hostComm().rank() + " of "
                            + topo.hostComm().size() + ", the real layout says " + topo.hostPosition() + " of "
                            + topo.hostLayout().nodeSize(topo.host()));
        }
        if (!topo.isVirtual() && topo.hostComm() != topo.nodeComm()) {
            throw new AssertionError("real nodes: the real node communicator should be the node communicator");
        }
        if (topo.nodeComm().rank() != topo.position()) {
            throw new AssertionError(
                    "rank in node communicator " + topo.nodeComm().rank() + " != position " + topo.position());
        }
        // Ranks of one node must report one processor name, ranks of different real nodes different ones.
        for (int r = 0; r < topo.size(); r++) {
            boolean sameNode = topo.layout().nodeOf(r) == topo.node();
            boolean sameName = topo.processorName(r).equals(topo.processorName(topo.rank()));
            if (sameNode && !sameName || !topo.isVirtual() && !sameNode && sameName) {
                throw new AssertionError("rank " + r + " (" + topo.processorName(r) + ") vs me ("
                        + topo.processorName(topo.rank()) + "): node and processor name disagree");
            }
        }
    }
}
