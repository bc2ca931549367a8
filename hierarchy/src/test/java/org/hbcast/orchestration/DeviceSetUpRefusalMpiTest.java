package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import mpi.Intracomm;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.stage.WaitLimit;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/**
 * The first device call's set-up when one rank refused its arguments: that rank must walk the same
 * collective steps as the others ({@link DeviceMemory#refuseConnect}: the node's placement gather,
 * then the handshake's agreement), or ranks wait for each other in different collectives for ever.
 * Runs without a GPU (the others' placements fail too; what matters is that every rank fails, none hangs).
 */
class DeviceSetUpRefusalMpiTest {
    @Test
    void aRankThatRefusedItsArgumentsFailsTheSetUpWithEveryRankInsteadOfHangingIt() {
        MpiOutcome out = MpiLaunch.body(DeviceSetUpRefusalMpiTest::setUp)
                .layout("2,1")
                .env("HBCAST_NODE_SIZES", "2,1")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < 3; r++) {
            assertTrue(out.note(r, FAILED).contains("cannot set up the node's GPU groups"), out.describe("rank " + r));
        }
    }

    static final String FAILED = "the set-up failed on every rank";

    static void setUp(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        MpiComm comm = OpenMpi.comm(world);
        Topology topology = Topology.discover(comm, "2,1");
        ranks.checkAll(List.of(Ranks.named(FAILED, () -> {
            try {
                if (world.getRank() == 1) {
                    DeviceMemory.refuseConnect(comm, topology, "rank 1 refused its arguments");
                } else {
                    DeviceMemory.connect(comm, topology, 2, 1 << 16, WaitLimit.givingUp(20_000_000_000L))
                            .close();
                }
                throw new AssertionError("the set-up went through although rank 1 refused");
            } catch (MpiFailure e) {
                report.note(FAILED, e.getMessage());
            }
        })));
    }
}
