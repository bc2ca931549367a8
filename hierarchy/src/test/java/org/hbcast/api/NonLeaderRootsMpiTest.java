package org.hbcast.api;

import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.Payload;
import org.hbcast.testing.OnRanks;
import org.hbcast.testing.Ranks;

/**
 * A rank waiting on its node's call board drives MPI's progress (issue 52, item 6): on the 2-host
 * test bed, Open MPI's own broadcast between the hosts' non-leaders (plan {@code native}, roots
 * alternating between ranks 1 and 3, 121 KiB, past the TCP eager limit) hung: a root's send returned
 * with fragments still queued in it, the root then waited on the board for the next call's header,
 * and the receiver, that next call's root, waited for the fragments for ever. The soak's plan
 * {@code native} hung in 9 runs of 11 so; with the wait kicking MPI's progress, none of 3.
 */
class NonLeaderRootsMpiTest {
    private static final int CHARS = 61_950;

    /** {@code calls} broadcasts of 121 KiB arrays whose roots alternate between ranks 1 and 3; every byte checked. */
    @OnRanks(
            value = "bed 2x2",
            env = {"HBCAST_ALGORITHM=native", "HBCAST_TIMEOUT_S=10", "HBCAST_TIMEOUT_FAILS=1"},
            args = "calls=60")
    void largeBroadcastsBetweenTheNonLeadersOfTwoHostsFinish(Ranks ranks) throws Exception {
        int calls = ranks.intArg("calls", 40);
        ranks.plan(calls);
        try (HierarchicalBcast hb = HierarchicalBcast.create(ranks.world())) {
            for (int i = 0; i < calls; i++) {
                Broadcasts.check(
                        ranks.report(),
                        hb,
                        ranks.world(),
                        Payload.Kind.ARRAY,
                        ElementType.CHAR,
                        CHARS,
                        i % 2 == 0 ? 1 : 3,
                        i);
            }
        }
    }
}
