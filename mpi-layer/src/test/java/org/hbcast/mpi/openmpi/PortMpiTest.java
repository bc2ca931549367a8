package org.hbcast.mpi.openmpi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** The port's Open MPI binding on four real ranks: every operation the library uses (see {@link PortProgram}). */
class PortMpiTest {
    @Test
    void everyOperationOfThePortWorksOnOpenMpi() {
        MpiOutcome out = MpiLaunch.program(PortProgram.class)
                .ranks(4)
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
        for (int r = 0; r < 4; r++) {
            assertTrue(out.note(r, "error").contains("MPI_ERR_RANK"), out.describe("rank " + r + "'s error"));
        }
    }
}
