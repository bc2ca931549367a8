package org.hbcast;

import org.hbcast.testing.MpiLaunch;
import org.junit.jupiter.api.Test;

/**
 * A rank waiting on its node's call board drives MPI's progress (issue 52, item 6): on the 2-host
 * test bed, Open MPI's own broadcast between the hosts' non-leaders (plan {@code native}, roots
 * alternating between ranks 1 and 3, 121 KiB, past the TCP eager limit) hung: a root's send returned
 * with fragments still queued in it, the root then waited on the board for the next call's header,
 * and the receiver, that next call's root, waited for the fragments for ever. The soak's plan
 * {@code native} hung in 9 runs of 11 so; with the wait kicking MPI's progress, none of 3.
 */
class NonLeaderRootsMpiTest {

    @Test
    void largeBroadcastsBetweenTheNonLeadersOfTwoHostsFinish() {
        MpiLaunch.program(NonLeaderRootsProgram.class)
                .ranks(4)
                .testBed(2, 2)
                .env("HBCAST_ALGORITHM", "native")
                .env("HBCAST_TIMEOUT_S", "10")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .args("calls=60")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(60)
                .assertNoLeakedSegments();
    }
}
