package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The leaders' tree's persistent requests on real launches (see {@link KnomialBroadcastProgram}). */
class KnomialBroadcastMpiTest {

    @ParameterizedTest(name = "{0} ranks, radix {1}")
    @CsvSource({"4, 2", "3, 3"})
    void requestsAreKeptPerBufferAndMadeAnewWhenItChanges(int ranks, int radix) {
        MpiOutcome out = MpiLaunch.program(KnomialBroadcastProgram.class)
                .ranks(ranks)
                .args("suite=reuse", "radix=" + radix)
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        for (int r = 0; r < ranks; r++) {
            assertTrue(out.note(r, "detail").startsWith("calls="), out.describe("rank " + r));
        }
    }

    @Test
    void anAbortedCallLeavesNothingPostedIntoTheBuffer() {
        MpiOutcome out = MpiLaunch.program(KnomialBroadcastProgram.class)
                .ranks(2)
                .args("suite=abort")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        assertTrue(out.note(1, "detail").startsWith("nothing landed"), out.describe("rank 1"));
    }
}
