package example;

import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/** What both checks broadcast, and how they check it and report. */
final class Sizes {
    /** Elements per broadcast: one int, a few KiB, 1 MiB, and 4 MiB and a bit. */
    static final int[] INTS = {1, 1000, 1 << 18, (1 << 20) + 7};

    private Sizes() {}

    /** The root's pattern, or a stale value everywhere else. */
    static int[] prepare(int n, int root, int rank) {
        int[] data = new int[n];
        for (int i = 0; i < n; i++) {
            data[i] = rank == root ? value(i, root) : -1;
        }
        return data;
    }

    /** How many elements differ from the root's pattern. */
    static int wrong(int[] data, int root) {
        int wrong = 0;
        for (int i = 0; i < data.length; i++) {
            if (data[i] != value(i, root)) {
                wrong++;
            }
        }
        return wrong;
    }

    /** Sums the wrong elements over the ranks; rank 0 prints the verdict; finalizes; exits 1 on wrong data. */
    static void report(String how, Intracomm world, int calls, int wrong) throws MPIException {
        int[] total = {wrong};
        world.allReduce(total, 1, MPI.INT, MPI.SUM);
        if (world.getRank() == 0) {
            System.out.println("broadcast-check (" + how + "): " + calls + " broadcasts on " + world.getSize()
                    + " ranks, " + (total[0] == 0 ? "every element right" : total[0] + " elements WRONG"));
        }
        MPI.Finalize();
        if (total[0] != 0) {
            System.exit(1);
        }
    }

    private static int value(int i, int root) {
        return i * 31 + root * 1_000_003;
    }
}
