package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import mpi.Intracomm;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.StageException;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/** The CUDA ring's per-call wire: records swapped, and a neighbour that never comes fails the wait (no GPU needed). */
class DescriptorSwapMpiTest {
    @Test
    void aNeighbourThatNeverComesFailsTheSwapInsteadOfHangingIt() {
        MpiOutcome out = MpiLaunch.body(DescriptorSwapMpiTest::swaps)
                .layout("nodes 3")
                .run()
                .assertAllRanksOk();
        String note = out.note(1, ABSENT);
        assertTrue(note.contains("timed out after 2.0 s"), out.describe("rank 1"));
        assertTrue(note.contains("node rank 2 (right) sent nothing"), out.describe("rank 1"));
    }

    static final String ABSENT = "a neighbour that never comes";
    private static final int BYTES = 96;

    /**
     * On every rank: three ranks as one node swap records with their ring neighbours; then rank 2
     * stays away while the others swap, and rank 1, whose right neighbour it is, must fail within the
     * timeout naming it instead of waiting for ever. Rank 2 joins last (after a barrier), so every
     * posted request is matched before finalize. Rank 1's error is the note {@value #ABSENT}.
     */
    static void swaps(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        int rank = world.getRank();
        int size = world.getSize();
        int left = (rank + size - 1) % size;
        int right = (rank + 1) % size;
        ranks.checkAll(List.of(
                Ranks.named("neighbours swap their records", () -> {
                    byte[] mine = new byte[BYTES];
                    Arrays.fill(mine, (byte) rank);
                    byte[] theirs = new byte[BYTES];
                    new DescriptorSwap(
                                    OpenMpi.comm(world), left, right, BYTES, ProgressWait.backingOff(60_000_000_000L))
                            .swap(mine, theirs);
                    for (byte b : theirs) {
                        if (b != (byte) right) {
                            throw new AssertionError(
                                    "rank " + rank + " got a byte " + b + " from its right neighbour " + right);
                        }
                    }
                }),
                Ranks.named(ABSENT, () -> {
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
                                        OpenMpi.comm(world),
                                        left,
                                        right,
                                        BYTES,
                                        ProgressWait.backingOff(60_000_000_000L))
                                .swap(mine, theirs);
                    }
                })));
    }
}
