package org.hbcast.header;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** The header relay on real launches (see {@link HeaderRelayProgram}). */
class HeaderRelayMpiTest {

    @Test
    void
            headersAroundTheFirstMessagesEdgeArriveWholeFromEveryRootDownEveryTreeSomeSynchronouslyAndAComeHeaderIsNotWithdrawn() {
        MpiOutcome out =
                MpiLaunch.program(HeaderRelayProgram.class).ranks(5).run().assertAllRanksOk();
        for (int r = 0; r < 5; r++) {
            out.assertCases(r, r < 2 ? 5 : 4);
        }
    }

    @Test
    void acrossTestBedHosts() {
        MpiOutcome out =
                MpiLaunch.program(HeaderRelayProgram.class).testBed(3, 1).run().assertAllRanksOk();
        out.assertCases(0, 5).assertCases(1, 5).assertCases(2, 4);
    }

    @Test
    void theRestOfAHeaderIsTakenOnlyFromItsFirstPartsSenderAndOnlyOfItsCall() {
        MpiOutcome out = MpiLaunch.program(HeaderRelayProgram.class)
                .ranks(3)
                .args("suite=splice")
                .run()
                .assertAllRanksOk();
        out.assertCases(0, 2).assertCases(1, 1).assertCases(2, 2);
    }
}
