package org.hbcast.orchestration;

import java.util.Arrays;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.StageException;
import org.hbcast.testing.MpiTestProgram;

/**
 * The CUDA ring's descriptor swap over real MPI, which needs no GPU: three ranks as one node swap
 * records with their ring neighbours; then rank 2 stays away while the others swap, and rank 1,
 * whose right neighbour it is, must fail within the timeout naming it instead of waiting for ever.
 * Rank 2 joins last (after a barrier), so every posted request is matched before finalize. Two
 * cases; rank 1's error is the note {@value #ABSENT}.
 */
public final class DescriptorSwapProgram {
    static final String ABSENT = "a neighbour that never comes";
    private static final int BYTES = 96;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            int rank = world.getRank();
            int size = world.getSize();
            int left = (rank + size - 1) % size;
            int right = (rank + 1) % size;
            report.check("neighbours swap their records", () -> {
                byte[] mine = new byte[BYTES];
                Arrays.fill(mine, (byte) rank);
                byte[] theirs = new byte[BYTES];
                new DescriptorSwap(OpenMpi.comm(world), left, right, BYTES, ProgressWait.backingOff(60_000_000_000L))
                        .swap(mine, theirs);
                for (byte b : theirs) {
                    if (b != (byte) right) {
                        throw new AssertionError(
                                "rank " + rank + " got a byte " + b + " from its right neighbour " + right);
                    }
                }
            });
            report.check(ABSENT, () -> {
                byte[] mine = new byte[BYTES];
                byte[] theirs = new byte[BYTES];
                if (rank != 2) {
                    try {
                        new DescriptorSwap(
                                        OpenMpi.comm(world),
                                        left,
                                        right,
                                        BYTES,
                                        ProgressWait.backingOff(2_000_000_000L))
                                .swap(mine, theirs);
                        if (rank == 1) {
                            throw new AssertionError("rank 1 swapped although its right neighbour never came");
                        }
                    } catch (StageException e) {
                        report.note(ABSENT, e.getMessage());
                        if (rank != 1) {
                            throw e;
                        }
                    }
                }
                world.barrier();
                if (rank == 2) {
                    // Late: matches rank 1's abandoned receive and rank 0's send.
                    new DescriptorSwap(
                                    OpenMpi.comm(world), left, right, BYTES, ProgressWait.backingOff(60_000_000_000L))
                            .swap(mine, theirs);
                }
            });
            return "descriptor swap bounded by its timeout";
        });
    }
}
