package org.hbcast.bench;

import mpi.MPI;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.openmpi.OpenMpi;

/** Prints the topology of MPI.COMM_WORLD (nodes, ranks, processor names) from rank 0. */
public final class TopologyReport {
    private TopologyReport() {}

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        try (Topology topo = Topology.discover(OpenMpi.world(), System.getenv("HBCAST_NODE_SIZES"))) {
            if (topo.rank() == 0) {
                System.out.print(topo.report());
                System.out.flush();
            }
        }
        MPI.Finalize();
    }
}
