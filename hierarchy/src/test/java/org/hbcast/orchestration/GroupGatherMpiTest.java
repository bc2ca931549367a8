package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertTrue;

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

/** The GPU groups' per-call wire: every record reaches every rank, and a rank that never comes fails the wait (no GPU needed). */
class GroupGatherMpiTest {
    @Test
    void everyRecordReachesEveryRankAndAnAbsentRankFailsTheWaitInsteadOfHangingIt() {
        MpiOutcome out = MpiLaunch.body(GroupGatherMpiTest::gathers)
                .layout("nodes 3")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < 2; r++) {
            String note = out.note(r, ABSENT);
            assertTrue(note.contains("timed out after 2.0 s"), out.describe("rank " + r));
            assertTrue(note.contains("from node ranks 2 (nothing received)"), out.describe("rank " + r));
        }
    }

    static final String ABSENT = "a rank that never comes";
    private static final int BYTES = 136;

    /**
     * On every rank: three ranks as one node gather records three times over one {@link GroupGather}
     * (its buffers reused), each record naming its rank and call; then rank 2 stays away while the
     * others gather, and both must fail within the timeout naming it. Rank 2 joins last (after a
     * barrier), so every posted request is matched before finalize.
     */
    static void gathers(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        int rank = world.getRank();
        int size = world.getSize();
        ranks.checkAll(List.of(
                Ranks.named("every rank gets every record, call after call", () -> {
                    GroupGather gather =
                            new GroupGather(OpenMpi.comm(world), BYTES, ProgressWait.backingOff(60_000_000_000L));
                    for (int call = 0; call < 3; call++) {
                        byte[] mine = new byte[BYTES];
                        for (int i = 0; i < BYTES; i++) {
                            mine[i] = (byte) (rank * 16 + call + i);
                        }
                        byte[] all = new byte[BYTES * size];
                        gather.allGather(mine, all);
                        for (int p = 0; p < size; p++) {
                            for (int i = 0; i < BYTES; i++) {
                                if (all[p * BYTES + i] != (byte) (p * 16 + call + i)) {
                                    throw new AssertionError("call " + call + ": rank " + rank + " got byte " + i
                                            + " of node rank " + p + "'s record wrong");
                                }
                            }
                        }
                    }
                }),
                Ranks.named(ABSENT, () -> {
                    byte[] mine = new byte[BYTES];
                    byte[] all = new byte[BYTES * size];
                    if (rank != 2) {
                        try {
                            new GroupGather(OpenMpi.comm(world), BYTES, ProgressWait.backingOff(2_000_000_000L))
                                    .allGather(mine, all);
                            throw new AssertionError("rank " + rank + " gathered although rank 2 never came");
                        } catch (StageException e) {
                            report.note(ABSENT, e.getMessage());
                        }
                    }
                    world.barrier();
                    if (rank == 2) {
                        // Late: matches the others' abandoned requests.
                        new GroupGather(OpenMpi.comm(world), BYTES, ProgressWait.backingOff(60_000_000_000L))
                                .allGather(mine, all);
                    }
                })));
    }
}
