package org.hbcast.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rank-side report, its hand-written JSON read back by Jackson, and the outcome's assertions on it (no MPI). */
class RankResultTest {
    @TempDir
    Path dir;

    private static final String AWKWARD =
            "quote \" backslash \\ slash / newline \n tab \t nul \u0000 bell \u0007 del \u007f"
                    + " e-acute \u00e9 line separator \u2028 smile \ud83d\ude00 lone \ud800 end";

    @Test
    void whatARankWritesIsReadBackExactly() throws IOException {
        RankReport report = new RankReport();
        report.pass("first").fail(AWKWARD, AWKWARD).pass("third");
        report.figure("whole", Long.MAX_VALUE)
                .figure("negative", -7)
                .figure("small", 1e-5)
                .figure("three", 3.0)
                .figure("minus zero", -0.0)
                .figure("nan", Double.NaN)
                .figure("up", Double.POSITIVE_INFINITY)
                .figure("down", Double.NEGATIVE_INFINITY)
                .figure(AWKWARD, 1);
        report.note("plain", "text").note(AWKWARD, AWKWARD);
        RankResult written = report.result(3, true);
        Path file = written.writeTo(dir);

        assertEquals(dir.resolve("rank-3.json"), file);
        assertEquals(List.of(file), Files.list(dir).toList(), "no temporary file left behind");
        RankResult read = ResultFiles.read(file);
        assertEquals(written, read);
        assertEquals(3, read.cases());
        assertEquals(new RankResult.Failure(AWKWARD, AWKWARD), read.failures().get(0));
        assertEquals(Long.MAX_VALUE, read.figures().get("whole"));
        assertEquals(3.0, read.figures().get("three"), "a double stays a double");
        assertEquals(
                List.of("whole", "negative", "small", "three", "minus zero", "nan", "up", "down", AWKWARD),
                List.copyOf(read.figures().keySet()),
                "in the order reported");
        assertFalse(read.ok());
    }

    @Test
    void checkPassesOrRecordsTheFailureUnderItsNameOnce() throws Exception {
        RankReport report = new RankReport();
        report.check("holds", () -> {});
        IllegalStateException thrown = new IllegalStateException("broke");
        IllegalStateException e = assertThrows(
                IllegalStateException.class,
                () -> report.check("breaks", () -> {
                    throw thrown;
                }));
        assertSame(thrown, e, "the case's throwable goes on unchanged");
        // The body wraps it on its way out: still one failure, under the case's name.
        report.uncaught(new AssertionError("wrapped", e));
        RankResult r = report.result(0, false);
        assertEquals(2, r.cases());
        assertEquals(List.of(new RankResult.Failure("breaks", "java.lang.IllegalStateException: broke")), r.failures());
    }

    @Test
    void aThrowableOutsideACaseIsOneFailureNamedAfterTheLastCaseThatPassed() {
        RankReport report = new RankReport();
        report.uncaught(new IllegalArgumentException("early"));
        report.pass("one").pass("two");
        report.uncaught(new AssertionError("late"));
        assertEquals(
                List.of(
                        new RankResult.Failure("(before the first case)", "java.lang.IllegalArgumentException: early"),
                        new RankResult.Failure("(after case 'two')", "java.lang.AssertionError: late")),
                report.result(0, false).failures());
        assertEquals(2, report.cases(), "what escaped outside a case is no case");
        assertThrows(IllegalArgumentException.class, () -> report.pass(""));
        assertThrows(NullPointerException.class, () -> report.figure(null, 1));
    }

    @Test
    void aDirectoryIsReadStrictly() throws IOException {
        new RankReport().pass("x").result(0, true).writeTo(dir);
        Files.writeString(dir.resolve("rank-1.json"), "{\"rank\":1,\"completed\":true,\"cases\":");
        new RankReport().pass("x").result(7, true).writeTo(dir);
        Files.move(dir.resolve("rank-7.json"), dir.resolve("rank-2.json"));
        Files.writeString(
                dir.resolve("rank-3.json"),
                "{\"rank\":3,\"completed\":true,\"cases\":1,\"failures\":[],"
                        + "\"figures\":{\"x\":\"1\"},\"notes\":{}}");
        Files.writeString(dir.resolve("rank-4-123.tmp"), "half a fi");
        ResultFiles.Contents c = ResultFiles.readAll(dir);
        assertEquals(List.of(0), List.copyOf(c.results().keySet()));
        assertEquals(List.of(1, 2, 3), List.copyOf(c.unreadable().keySet()));
        assertTrue(
                c.unreadable().get(2).contains("holds the result of rank 7"),
                c.unreadable().get(2));
        assertTrue(
                c.unreadable().get(3).contains("figure x is not a number"),
                c.unreadable().get(3));
    }

    private static MpiOutcome outcome(int exit, RankResult... results) {
        return outcome(false, exit, results);
    }

    private static MpiOutcome outcome(boolean plansRequired, int exit, RankResult... results) {
        Map<Integer, RankResult> byRank = new java.util.HashMap<>();
        for (RankResult r : results) {
            byRank.put(r.rank(), r);
        }
        return new MpiOutcome(
                "SomeProgram on 3 ranks",
                plansRequired,
                3,
                exit,
                false,
                "the output",
                List.of(),
                new ResultFiles.Contents(byRank, Map.of()));
    }

    private static RankResult passed(int rank, int cases) {
        RankReport report = new RankReport();
        for (int i = 0; i < cases; i++) {
            report.pass("case " + i);
        }
        return report.figure("bytes", 64).note("plan", "ring").result(rank, true);
    }

    @Test
    void assertAllRanksOkNamesEveryFailedCaseWithItsMessage() {
        RankReport bad = new RankReport().pass("a");
        bad.fail("call 17 (root 2)", "byte 5 is 0, want 7").fail("call 18", "timed out");
        MpiOutcome out = outcome(0, passed(0, 2), bad.result(1, true), passed(2, 2));
        String message =
                assertThrows(AssertionError.class, out::assertAllRanksOk).getMessage();
        assertTrue(
                message.startsWith(
                        "SomeProgram on 3 ranks: rank 1 failed case 'call 17 (root 2)': byte 5 is 0, want 7\n"
                                + "rank 1 failed case 'call 18': timed out\n"),
                message);
        assertTrue(message.contains("the output"), message);
    }

    @Test
    void assertAllRanksOkWantsEveryRanksFileSomeCasesAndExitZero() {
        outcome(0, passed(0, 1), passed(1, 1), passed(2, 1)).assertAllRanksOk();
        String missing = assertThrows(
                        AssertionError.class,
                        () -> outcome(0, passed(0, 1), passed(2, 1)).assertAllRanksOk())
                .getMessage();
        assertTrue(missing.contains("rank 1 wrote no result"), missing);
        String none = assertThrows(
                        AssertionError.class,
                        () -> outcome(0, passed(0, 1), passed(1, 0), passed(2, 1))
                                .assertAllRanksOk())
                .getMessage();
        assertTrue(none.contains("rank 1 ran no case"), none);
        String exit = assertThrows(
                        AssertionError.class,
                        () -> outcome(1, passed(0, 1), passed(1, 1), passed(2, 1))
                                .assertAllRanksOk())
                .getMessage();
        assertTrue(exit.contains("exit status 1"), exit);
        String aborted = assertThrows(
                        AssertionError.class,
                        () -> outcome(
                                        0,
                                        passed(0, 1),
                                        passed(1, 1),
                                        new RankResult(2, false, 1, List.of(), Map.of(), Map.of()))
                                .assertAllRanksOk())
                .getMessage();
        assertTrue(aborted.contains("rank 2 did not complete"), aborted);
    }

    @Test
    void caseCountsFiguresAndNotesAreChecked() {
        MpiOutcome out = outcome(0, passed(0, 3), passed(1, 3), passed(2, 4));
        out.assertCases(0, 3).assertAtLeastCases(2, 4);
        assertThrows(AssertionError.class, () -> out.assertCasesOnEveryRank(3));
        assertThrows(AssertionError.class, () -> out.assertAtLeastCases(0, 4));
        assertEquals(64, out.longFigure(1, "bytes"));
        assertEquals(64.0, out.figure(1, "bytes"));
        assertEquals("ring", out.note(2, "plan"));
        assertThrows(AssertionError.class, () -> out.figure(1, "absent"));
        assertThrows(AssertionError.class, () -> out.note(1, "absent"));
        assertThrows(AssertionError.class, () -> out.onlyFailure(1));
    }

    private static RankResult planned(int rank, int plan, int cases) {
        RankReport report = new RankReport().plan(plan - 1).plan(1);
        for (int i = 0; i < cases; i++) {
            report.pass("case " + i);
        }
        return report.result(rank, true);
    }

    @Test
    void aRankMustRunTheCasesItPlannedAndABodyMustPlan() {
        outcome(true, 0, planned(0, 2, 2), planned(1, 3, 3), planned(2, 1, 1)).assertAllRanksOk();
        String fewer = assertThrows(
                        AssertionError.class,
                        () -> outcome(false, 0, planned(0, 2, 2), planned(1, 3, 2), planned(2, 1, 1))
                                .assertAllRanksOk())
                .getMessage();
        assertTrue(fewer.contains("rank 1 ran 2 cases, planned 3"), fewer);
        String more = assertThrows(
                        AssertionError.class,
                        () -> outcome(true, 0, planned(0, 2, 3), planned(1, 3, 3), planned(2, 1, 1))
                                .assertPlannedCasesOnEveryRank())
                .getMessage();
        assertTrue(more.contains("rank 0 ran 3 cases, planned 2"), more);
        String none = assertThrows(
                        AssertionError.class,
                        () -> outcome(true, 0, planned(0, 2, 2), passed(1, 3), planned(2, 1, 1))
                                .assertAllRanksOk())
                .getMessage();
        assertTrue(none.contains("rank 1 declared no cases"), none);
        outcome(false, 0, passed(0, 1), passed(1, 1), passed(2, 1)).assertAllRanksOk();
        assertThrows(IllegalArgumentException.class, () -> new RankReport().plan(-1));
    }
}
