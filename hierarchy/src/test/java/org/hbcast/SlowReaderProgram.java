package org.hbcast;

import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.testing.MpiTestProgram;

/**
 * Ranks that cross their roots while one rank of the node is a full board behind (issue 52: the "no
 * root" entry must wait for room like any header). On one node of four: rank 3 sleeps 2 s, while
 * rank 0 broadcasts {@code CallBoard.ENTRIES} calls of 8 bytes, which ride in the board's entries, so
 * rank 0 runs that far ahead; then rank 0 names root 1 and rank 1 root 0 (the others 0): the first
 * of them to see the other waiting claims the call with no root, an entry that may not overwrite
 * the one rank 3 has not read. Cases: the small calls, then five calls of 4 KiB after the crossed
 * one; the crossed call's outcome is noted as {@code crossed}.
 */
public final class SlowReaderProgram {
    static final int SMALL_CALLS = 64;
    static final int AFTER = 5;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            int rank = world.getRank();
            try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                if (rank == 3) {
                    Thread.sleep(2_000);
                }
                long seed = 1;
                for (int i = 0; i < SMALL_CALLS; i++) {
                    BcastMatrixProgram.check(report, hb, world, Payload.Kind.ARRAY, ElementType.INT, 2, 0, seed++);
                }
                int crossedRoot = rank == 0 ? 1 : 0;
                Payload p = new Payload(Payload.Kind.ARRAY, ElementType.INT, 2);
                p.fillStale();
                String outcome;
                try {
                    hb.bcast(p.container, 2, OpenMpi.datatype(ElementType.INT.basicType()), crossedRoot);
                    outcome = "no error";
                } catch (mpi.MPIException e) {
                    outcome = e.getMessage();
                }
                report.note("crossed", outcome);
                for (int i = 0; i < AFTER; i++) {
                    BcastMatrixProgram.check(
                            report, hb, world, Payload.Kind.ARRAY, ElementType.INT, 1024, i % 4, seed++);
                }
            }
            return "slow reader";
        });
    }
}
