package example;

import mpi.Intracomm;
import mpi.MPI;

/**
 * The same check with Open MPI's own {@code Comm.bcast}: a program that never heard of hbcast. Run
 * with {@code -javaagent:hbcast-agent.jar}, its calls go to hbcast unmodified.
 */
public final class PlainBcast {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int wrong = 0;
        int calls = 0;
        for (int n : Sizes.INTS) {
            for (int root = 0; root < world.getSize(); root++) {
                int[] data = Sizes.prepare(n, root, world.getRank());
                world.bcast(data, n, MPI.INT, root);
                wrong += Sizes.wrong(data, root);
                calls++;
            }
        }
        Sizes.report("Comm.bcast", world, calls, wrong);
    }
}
