package org.hbcast.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The harness on real launches: results cross from the ranks to the test, and failures reach the test's message. */
class HarnessMpiTest {

    @Test
    void everyRanksResultReachesTheTest() {
        MpiOutcome out = MpiLaunch.program(HarnessProgram.class)
                .ranks(3)
                .args("ok")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < 3; r++) {
            out.assertCases(r, r + 1);
            assertEquals(r, out.longFigure(r, "rank"));
            assertEquals(r / 2.0, out.figure(r, "half"));
            assertEquals(HarnessProgram.AWKWARD, out.note(r, "awkward"));
        }
        assertThrows(AssertionError.class, () -> out.assertCases(2, 2));
        assertThrows(AssertionError.class, () -> out.assertAtLeastCases(1, 3));
    }

    @Test
    void aFailureRecordedOnARankThatCarriesOnFailsTheTest() {
        MpiOutcome out = MpiLaunch.program(HarnessProgram.class)
                .ranks(3)
                .args("carry-on")
                .run();
        assertEquals(0, out.exitCode(), out.describe("the ranks carried on and finished"));
        String message =
                assertThrows(AssertionError.class, out::assertAllRanksOk).getMessage();
        assertTrue(message.contains(": rank 1 failed case 'second': wrong byte\n"), message);
        assertEquals(
                List.of(new RankResult.Failure("second", "wrong byte")),
                out.result(1).failures());
        out.assertCases(1, 3);
    }

    @Test
    void aThrowingRankAbortsAndItsFailureLeadsTheTestsMessage() {
        MpiOutcome out =
                MpiLaunch.program(HarnessProgram.class).ranks(3).args("throw").run();
        assertNotEquals(0, out.exitCode(), out.describe("the job was aborted"));
        String message =
                assertThrows(AssertionError.class, out::assertAllRanksOk).getMessage();
        assertTrue(
                message.contains(": rank 1 failed case 'planted': java.lang.AssertionError: planted failure\n"),
                message);
        RankResult failed = out.result(1);
        assertTrue(!failed.completed() && failed.cases() == 3, out.describe("rank 1: 2 cases passed, 1 failed"));
    }
}
