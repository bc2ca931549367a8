package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankResult;
import org.junit.jupiter.api.Test;

/**
 * Bad arguments, mismatched calls, a late root and a killed rank: clear errors on every rank, waits
 * as Open MPI waits unless failing on a time-out was asked for, no hang, no leak.
 */
class BcastFailureMpiTest {

    @Test
    void badArgumentsFailOnEveryRankBeforeAnythingIsSent() {
        // Nine bad calls and the valid one after them.
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=arguments")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
        for (int r = 0; r < 4; r++) {
            assertTrue(
                    out.note(r, "root past the last rank")
                            .contains("root 4 is out of range: the communicator has ranks 0..3"),
                    out.describe("rank " + r));
            assertTrue(
                    out.note(r, "count past the buffer").contains("needs 520 bytes but the buffer holds 512"),
                    out.describe("rank " + r));
        }
    }

    @Test
    void mismatchedCountsInCheckModeFailOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=check")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(3);
        for (int r = 0; r < 4; r++) {
            assertTrue(out.note(r, "count mismatch").contains("ranks disagree on the call"), out.describe("rank " + r));
            assertTrue(out.note(r, "root mismatch").contains("ranks disagree on the root"), out.describe("rank " + r));
        }
    }

    /** The still-waiting line of a rank that waited for the late root (see {@code WaitLimit}). */
    private static final Pattern STILL_WAITING = Pattern.compile(
            "hbcast bcast on rank (\\d+): call 3 still waiting after \\d+\\.\\d s for the call's header from root 0\\b");

    @Test
    void aLateRootIsWaitedForAsOpenMpiWaitsAndEachWaitingRankSaysSo() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=late", "late=8")
                .env("HBCAST_TIMEOUT_S", "3")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(4);
        int[] lines = stillWaitingLines(out, 4);
        assertEquals(0, lines[0], out.describe("the root waited for nobody"));
        for (int r = 1; r < 4; r++) {
            // 8 s late against a 3 s timeout: a line at 3 s and one at 6 s, give or take the start-up.
            assertTrue(lines[r] >= 1 && lines[r] <= 3, out.describe("rank " + r + " printed " + lines[r] + " lines"));
            assertTrue(out.figure(r, "lateSeconds") > 3, out.describe("rank " + r + " did not wait"));
        }
        out.assertNoLeakedSegments();
    }

    @Test
    void aLateRootFailsTheWaitingRanksOnlyWhereFailingWasAskedFor() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=late", "late=8")
                .env("HBCAST_TIMEOUT_S", "3")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .run()
                .assertAllRanksOk();
        out.assertCases(0, 4);
        for (int r = 1; r < 4; r++) {
            out.assertCases(r, 3);
            String note = out.note(r, BcastFailureProgram.LATE_CASE);
            assertTrue(
                    note.contains("timed out after 3.0 s waiting for the call's header from root 0"),
                    out.describe("rank " + r + ": " + note));
        }
        assertEquals(0, IntStream.of(stillWaitingLines(out, 4)).sum(), out.describe("a failing wait reported"));
        out.assertNoLeakedSegments();
    }

    /** How many still-waiting lines each rank printed. */
    private static int[] stillWaitingLines(MpiOutcome out, int ranks) {
        int[] lines = new int[ranks];
        Matcher m = STILL_WAITING.matcher(out.output());
        while (m.find()) {
            lines[Integer.parseInt(m.group(1))]++;
        }
        return lines;
    }

    @Test
    void aKilledRankMakesTheOthersFailWithinTheTimeout() {
        MpiOutcome out = MpiLaunch.program(BcastFailureProgram.class)
                .nodeSizes("2,2")
                .args("suite=kill")
                .env("HBCAST_TIMEOUT_S", "5")
                // Failing on a time-out is opt-in; without it the survivors wait, as with Open MPI,
                // until Open MPI's runtime ends the job (recovery on here keeps it running).
                .env("HBCAST_TIMEOUT_FAILS", "1")
                // hbcast's own plan: where auto runs Open MPI's bcast (on virtual nodes past the header, say)
                // the call waits as Open MPI's does, without hbcast's timeout.
                .env("HBCAST_ALGORITHM", "hierarchical")
                .recovery()
                .run();
        // Rank 3 is the victim; every other rank's broadcasts must fail, and it must say so.
        for (int r = 0; r < 3; r++) {
            RankResult.Failure f = out.onlyFailure(r);
            assertTrue(
                    out.result(r).completed()
                            && f.caseName().equals(BcastFailureProgram.KILL_CASE)
                            && !f.message().isBlank(),
                    out.describe("rank " + r + " did not end with failed broadcasts: " + f));
            out.assertCases(r, 2);
            double seconds = out.figure(r, "seconds");
            assertTrue(seconds < 5 + 10, out.describe("rank " + r + " took " + seconds + " s"));
        }
        out.assertNoLeakedSegments();
        System.out.println("killed-rank outcome: " + out.results());
    }
}
