package org.hbcast;

import mpi.MPI;
import org.hbcast.call.ElementType;
import org.hbcast.testing.MpiTestProgram;

/**
 * A rank that fails inside a call with something other than an {@code MPIException} (issue 52): two
 * broadcasts of 4 MiB arrays from rank 0, where the launch leaves one rank too little direct memory
 * to copy the array into. Each rank notes what each call gave: {@code first} and {@code second}
 * ({@code ok} with every byte checked, or the throwable). Ends without finalizing, once every rank
 * has reported: the ranks of the other node may be left with a send to a rank that stopped.
 */
public final class BrokenRankProgram {
    private static final int INTS = 1 << 20;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(
                args,
                (world, rest, report) -> {
                    // Not closed: the instance is unusable on some ranks, and the process ends without
                    // finalizing; its segments were unlinked when the node connected them.
                    HierarchicalBcast hb = HierarchicalBcast.create(world);
                    for (String call : new String[] {"first", "second"}) {
                        report.note(call, call(hb, world, call.length()));
                    }
                    return "two calls";
                },
                MpiTestProgram.Finish.EXIT_WHEN_ALL_REPORTED);
    }

    private static String call(HierarchicalBcast hb, mpi.Intracomm world, long seed) {
        Payload p = new Payload(Payload.Kind.ARRAY, ElementType.INT, INTS);
        try {
            boolean root = world.getRank() == 0;
            if (root) {
                p.fillPattern(INTS, seed);
            } else {
                p.fillStale();
            }
            hb.bcast(p.container, INTS, MPI.INT, 0);
            String problem = p.verify(INTS, seed, root);
            return problem == null ? "ok" : "WRONG DATA: " + problem;
        } catch (mpi.MPIException e) {
            // The library's failures carry their cause and an MPI error class.
            Throwable first = e;
            while (first.getCause() != null) {
                first = first.getCause();
            }
            return e + (first != e ? " [cause " + first.getClass().getSimpleName() + "]" : "") + " ["
                    + org.hbcast.mpi.openmpi.OpenMpi.errorClass(e).mpiName() + "]";
        } catch (Throwable t) {
            return t.toString();
        }
    }
}
