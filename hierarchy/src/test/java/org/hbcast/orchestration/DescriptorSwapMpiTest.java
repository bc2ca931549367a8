package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** The CUDA ring's per-call wire: records swapped, and a neighbour that never comes fails the wait (no GPU needed). */
class DescriptorSwapMpiTest {
    @Test
    void aNeighbourThatNeverComesFailsTheSwapInsteadOfHangingIt() {
        MpiOutcome out = MpiLaunch.program(DescriptorSwapProgram.class)
                .nodeSizes("3")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2);
        String note = out.note(1, DescriptorSwapProgram.ABSENT);
        assertTrue(note.contains("timed out after 2.0 s"), out.describe("rank 1"));
        assertTrue(note.contains("node rank 2 (right) sent nothing"), out.describe("rank 1"));
    }
}
