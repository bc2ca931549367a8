package example;

import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.HierarchicalBcast;

/** Broadcasts with hbcast from every root at four sizes and checks every element on every rank. */
public final class BroadcastCheck {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int wrong = 0;
        int calls = 0;
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            for (int n : Sizes.INTS) {
                for (int root = 0; root < world.getSize(); root++) {
                    int[] data = Sizes.prepare(n, root, world.getRank());
                    hb.bcast(data, n, MPI.INT, root);
                    wrong += Sizes.wrong(data, root);
                    calls++;
                }
            }
        }
        Sizes.report("hbcast", world, calls, wrong);
    }
}
