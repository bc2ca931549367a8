package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/**
 * A rank that stops its instance is heard by every other rank in its waits, once, with its rank, call
 * and reason (issue 52: a failure part way through a call fails it on every rank, none waits for
 * ever for the rank that stopped).
 */
class StopNoticesMpiTest {

    @Test
    void everyWaitingRankHearsTheStopOnce() {
        MpiOutcome out = MpiLaunch.program(StopNoticesProgram.class).ranks(4).run();
        out.assertAllRanksOk();
        for (int r = 0; r < 3; r++) {
            assertEquals(
                    "rank 3 stopped its hbcast instance in call 7 (boom on rank 3); this instance stops too",
                    out.note(r, "heard"),
                    out.describe("rank " + r));
            assertEquals("nothing", out.note(r, "again"), out.describe("rank " + r + ", a second wait"));
        }
    }
}
