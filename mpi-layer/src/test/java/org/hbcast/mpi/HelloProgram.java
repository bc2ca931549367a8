package org.hbcast.mpi;

import org.hbcast.testing.MpiTestProgram;

/** Each rank reports its place in the topology: "size=N nodes=K node=i pos=p nodeSize=s host=H". */
public final class HelloProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest) -> {
            try (Topology topo = Topology.discover(world, System.getenv("HBCAST_NODE_SIZES"))) {
                int nodeCommSize = topo.nodeComm().getSize();
                if (nodeCommSize != topo.layout().nodeSize(topo.node())) {
                    throw new AssertionError("node communicator has " + nodeCommSize + " ranks, layout says "
                            + topo.layout().nodeSize(topo.node()));
                }
                if (topo.nodeComm().getRank() != topo.position()) {
                    throw new AssertionError("rank in node communicator " + topo.nodeComm().getRank()
                            + " != position " + topo.position());
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
                if (topo.rank() == 0) {
                    System.out.print(topo.report());
                }
                return String.format("size=%d nodes=%d node=%d pos=%d nodeSize=%d host=%s", topo.size(),
                        topo.layout().nodeCount(), topo.node(), topo.position(), nodeCommSize,
                        topo.processorName(topo.rank()));
            }
        });
    }
}
