package org.hbcast.agent;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import mpi.MPI;
import mpi.Request;
import org.hbcast.testing.MpiTestProgram;

/**
 * An MPI-3 habit with the bindings' own calls only (nothing of hbcast): broadcasts started with
 * {@code Comm.iBcast} and completed by {@code waitFor}, by a loop of {@code test} while the rank
 * computes, by {@code Request.waitAll}, and one beside a blocking {@code bcast}; every root, every
 * byte checked. Three cases per root.
 */
public final class IBcastProgram {
    /** Calls per root: three iBcasts (wait, test loop, waitAll of two) and one bcast. */
    static final int CALLS_PER_ROOT = 5;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            int size = world.getSize();
            int rank = world.getRank();
            for (int root = 0; root < size; root++) {
                int r = root;
                report.check("root " + root + ": waitFor", () -> {
                    ByteBuffer b = filled(300_007, rank == r, 1 + r);
                    world.iBcast(b, 300_007, MPI.BYTE, r).waitFor();
                    check(b, 300_007, 1 + r, "waitFor");
                });
                report.check("root " + root + ": test while computing", () -> {
                    DoubleBuffer d = ByteBuffer.allocateDirect(8 * 200_003)
                            .order(ByteOrder.nativeOrder())
                            .asDoubleBuffer();
                    if (rank == r) {
                        for (int i = 0; i < 200_003; i++) {
                            d.put(i, i * 0.5 + r);
                        }
                    }
                    Request q = world.iBcast(d, 200_003, MPI.DOUBLE, r);
                    double work = 0;
                    while (!q.test()) {
                        work += Math.sqrt(work + 1);
                    }
                    for (int i = 0; i < 200_003; i++) {
                        if (d.get(i) != i * 0.5 + r) {
                            throw new AssertionError("test loop: element " + i + " is " + d.get(i) + " " + work);
                        }
                    }
                });
                report.check("root " + root + ": waitAll of two and a bcast", () -> {
                    ByteBuffer a = filled(70_001, rank == r, 10 + r);
                    ByteBuffer b = filled(5, rank == r, 20 + r);
                    Request[] both = {world.iBcast(a, 70_001, MPI.BYTE, r), world.iBcast(b, 5, MPI.BYTE, r)};
                    ByteBuffer c = filled(4097, rank == (r + 1) % size, 30 + r);
                    // A blocking call after outstanding ones: MPI orders it after them.
                    world.bcast(c, 4097, MPI.BYTE, (r + 1) % size);
                    Request.waitAll(both);
                    check(a, 70_001, 10 + r, "waitAll first");
                    check(b, 5, 20 + r, "waitAll second");
                    check(c, 4097, 30 + r, "bcast between");
                });
            }
            return "iBcast on every root";
        });
    }

    private static ByteBuffer filled(int bytes, boolean root, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(bytes);
        for (int i = 0; i < bytes; i++) {
            b.put(i, root ? (byte) (i * 13 + seed) : (byte) -1);
        }
        return b;
    }

    private static void check(ByteBuffer b, int bytes, int seed, String what) {
        for (int i = 0; i < bytes; i++) {
            if (b.get(i) != (byte) (i * 13 + seed)) {
                throw new AssertionError(what + ": byte " + i + " is " + b.get(i));
            }
        }
    }

    /** Whether a program of this class on {@code ranks} ranks redirects this many calls. */
    static int redirected(int ranks) {
        return ranks * CALLS_PER_ROOT;
    }
}
