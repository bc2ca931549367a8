package org.hbcast.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.ExpectError;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.RankResult;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/**
 * Bad arguments, mismatched calls, a late root and a killed rank: clear errors on every rank, waits
 * as Open MPI waits unless failing on a time-out was asked for, no hang, no leak.
 */
class BcastFailureMpiTest {

    @Test
    void badArgumentsFailOnEveryRankBeforeAnythingIsSent() {
        // Nine bad calls and the valid one after them.
        MpiOutcome out = MpiLaunch.body(BcastFailureMpiTest::arguments)
                .nodeSizes("2,2")
                .run()
                .assertAllRanksOk();
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
        MpiOutcome out = MpiLaunch.body(BcastFailureMpiTest::check)
                .nodeSizes("2,2")
                .run()
                .assertAllRanksOk();
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
        MpiOutcome out = MpiLaunch.body(BcastFailureMpiTest::late)
                .nodeSizes("2,2")
                .args("late=8")
                .env("HBCAST_TIMEOUT_S", "3")
                .run()
                .assertAllRanksOk();
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
        MpiOutcome out = MpiLaunch.body(BcastFailureMpiTest::late)
                .nodeSizes("2,2")
                .args("late=8")
                .env("HBCAST_TIMEOUT_S", "3")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .run()
                .assertAllRanksOk();
        for (int r = 1; r < 4; r++) {
            String note = out.note(r, LATE_CASE);
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
        MpiOutcome out = MpiLaunch.body(BcastFailureMpiTest::kill)
                // The survivors end without finalizing: MPI_Finalize would wait for the dead rank
                // until the launch's limit (62 s of the suite's 20 minutes in session 45).
                .finish(MpiTestProgram.Finish.EXIT)
                .nodeSizes("2,2")
                .env("HBCAST_TIMEOUT_S", "5")
                // Failing on a time-out is opt-in; without it the survivors wait, as with Open MPI,
                // until Open MPI's runtime ends the job (recovery on here keeps it running).
                .env("HBCAST_TIMEOUT_FAILS", "1")
                // hbcast's own plan: where auto runs Open MPI's bcast (on virtual nodes past the header, say)
                // the call waits as Open MPI's does, without hbcast's timeout.
                .env("HBCAST_ALGORITHM", "hierarchical")
                .recovery()
                // The survivors report within seconds; Open MPI's teardown around the dead rank once
                // held the job to the default 180 s limit, which only slowed the suite.
                .timeout(Duration.ofSeconds(60))
                .run();
        // Rank 3 is the victim; every other rank's broadcasts must fail, and it must say so.
        for (int r = 0; r < 3; r++) {
            RankResult.Failure f = out.onlyFailure(r);
            assertTrue(
                    out.result(r).completed()
                            && f.caseName().equals(KILL_CASE)
                            && !f.message().isBlank(),
                    out.describe("rank " + r + " did not end with failed broadcasts: " + f));
            out.assertPlannedCases(r);
            double seconds = out.figure(r, "seconds");
            assertTrue(seconds < 5 + 10, out.describe("rank " + r + " took " + seconds + " s"));
        }
        out.assertNoLeakedSegments();
        System.out.println("killed-rank outcome: " + out.results());
    }

    /** The case of {@link #kill} that fails on every surviving rank. */
    static final String KILL_CASE = "broadcasts while the last rank is killed";

    /** Nine bad calls (cases named as the notes of their messages), then a valid one. */
    static void arguments(Ranks ranks) throws Exception {
        arguments(ranks.world(), ranks.report());
    }

    /** Two mismatched calls in check mode (cases named as the notes of their messages), then a valid one. */
    static void check(Ranks ranks) throws Exception {
        check(ranks.world(), ranks.report());
    }

    /**
     * The last rank SIGKILLs itself during a large broadcast, and every other rank must fail with a
     * clear error within the timeout: it reports that as the failure of case {@value #KILL_CASE}, with
     * figure {@code seconds} (from the first of those broadcasts to the failure).
     */
    static void kill(Ranks ranks) throws Exception {
        kill(ranks.world(), ranks.report());
    }

    /**
     * Rank 0, the root, comes {@code late=S} seconds late to its third broadcast, which the others
     * wait for as Open MPI would (or, with {@code HBCAST_TIMEOUT_FAILS=1}, fail after the timeout:
     * case {@value #LATE_CASE}, its message a note).
     */
    static void late(Ranks ranks) throws Exception {
        late(ranks.world(), ranks.report(), ranks.intArg("late", 8));
    }

    /** The case of {@link #late} that waits for the late root (and fails, where failing was asked for). */
    static final String LATE_CASE = "the call the root is late for";

    /**
     * Four broadcasts of 4 KiB from rank 0, the third after rank 0 slept {@code lateSeconds}; every
     * rank checks every byte of every call it completes. Where a time-out fails the call, the waiting
     * ranks' instance is unusable after it: they stop there.
     */
    private static String late(Intracomm world, RankReport report, int lateSeconds) throws Exception {
        int rank = world.getRank();
        // Read as the library reads it, without its API, so that this program ran on the code before the option.
        boolean fails = "1".equals(System.getenv("HBCAST_TIMEOUT_FAILS"));
        int calls = 4;
        int lateCall = 3;
        // Where the late call fails, the waiting ranks stop there.
        report.plan(fails && rank != 0 ? lateCall : calls);
        HierarchicalBcast hb = HierarchicalBcast.create(world);
        byte[] data = new byte[4096];
        for (int call = 1; call <= calls; call++) {
            for (int i = 0; i < data.length; i++) {
                data[i] = rank == 0 ? (byte) (i * 7 + call) : (byte) -1;
            }
            boolean isLate = call == lateCall;
            if (isLate && rank == 0) {
                Thread.sleep(lateSeconds * 1000L);
            }
            String name = isLate ? LATE_CASE : "call " + call;
            if (isLate && fails && rank != 0) {
                ExpectError.into(report, name, "root 0", () -> hb.bcast(data, data.length, MPI.BYTE, 0));
                hb.close();
                return "failed after the timeout waiting for the late root, as asked";
            }
            long start = System.nanoTime();
            hb.bcast(data, data.length, MPI.BYTE, 0);
            if (isLate) {
                report.figure("lateSeconds", (System.nanoTime() - start) / 1e9);
            }
            for (int i = 0; i < data.length; i++) {
                if (data[i] != (byte) (i * 7 + call)) {
                    throw new AssertionError(
                            name + ": byte " + i + " is " + data[i] + ", want " + (byte) (i * 7 + call));
                }
            }
            report.pass(name);
        }
        hb.close();
        return "waited for the late root";
    }

    /** Nine bad calls (cases named as the notes of their messages), then a valid one. */
    private static String arguments(Intracomm world, RankReport report) throws Exception {
        int size = world.getSize();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            double[] data = new double[64];
            Ranks.checkAll(
                    report,
                    List.of(
                            ExpectError.named(
                                    report,
                                    "root past the last rank",
                                    "root " + size + " is out of range",
                                    () -> hb.bcast(data, 8, MPI.DOUBLE, size)),
                            ExpectError.named(
                                    report,
                                    "root -1",
                                    "root -1 is out of range",
                                    () -> hb.bcast(data, 8, MPI.DOUBLE, -1)),
                            ExpectError.named(
                                    report,
                                    "negative count",
                                    "count -3 is negative",
                                    () -> hb.bcast(data, -3, MPI.DOUBLE, 0)),
                            ExpectError.named(
                                    report,
                                    "count past the buffer",
                                    "needs 520 bytes but the buffer holds 512",
                                    () -> hb.bcast(data, 65, MPI.DOUBLE, 0)),
                            ExpectError.named(
                                    report,
                                    "int[] for MPI.DOUBLE",
                                    "needs a double[]",
                                    () -> hb.bcast(new int[64], 8, MPI.DOUBLE, 0)),
                            ExpectError.named(
                                    report,
                                    "heap buffer",
                                    "heap (non-direct)",
                                    () -> hb.bcast(ByteBuffer.allocate(64), 8, MPI.BYTE, 0)),
                            ExpectError.named(
                                    report,
                                    "MPI.INT2",
                                    "is not supported",
                                    () -> hb.bcast(new int[64], 8, MPI.INT2, 0)),
                            ExpectError.named(
                                    report, "null buffer", "buffer is null", () -> hb.bcast(null, 8, MPI.INT, 0)),
                            ExpectError.named(
                                    report,
                                    "LongBuffer for MPI.INT",
                                    "needs a ByteBuffer or a IntBuffer",
                                    () -> hb.bcast(ByteBuffer.allocateDirect(64).asLongBuffer(), 2, MPI.INT, 0)),
                            // Nothing was sent: a valid call right after still delivers exactly the root's data.
                            Ranks.named(
                                    "the valid call after",
                                    () -> Broadcasts.check(
                                            hb,
                                            world,
                                            Payload.Kind.ARRAY,
                                            ElementType.DOUBLE,
                                            300_000,
                                            size - 1,
                                            77))));
        }
        return "bad calls rejected, the next call delivered";
    }

    /** Two mismatched calls in check mode (cases named as the notes of their messages), then a valid one. */
    private static String check(Intracomm world, RankReport report) throws Exception {
        try (HierarchicalBcast hb =
                HierarchicalBcast.create(world, BcastOptions.defaults().withCheck(true))) {
            byte[] data = new byte[1 << 20];
            int count = world.getRank() == 0 ? 100_000 : 100_001;
            int root = world.getRank() == 1 ? 0 : 1;
            Ranks.checkAll(
                    report,
                    List.of(
                            ExpectError.named(
                                    report,
                                    "count mismatch",
                                    "ranks disagree on the call",
                                    () -> hb.bcast(data, count, MPI.BYTE, 0)),
                            ExpectError.named(
                                    report,
                                    "root mismatch",
                                    "ranks disagree on the root",
                                    () -> hb.bcast(data, 1000, MPI.BYTE, root)),
                            Ranks.named(
                                    "the valid call after",
                                    () -> Broadcasts.check(
                                            hb, world, Payload.Kind.BUFFER, ElementType.BYTE, 500_000, 0, 78))));
        }
        return "check mode caught both mismatches";
    }

    private static String kill(Intracomm world, RankReport report) throws Exception {
        int rank = world.getRank();
        int victim = world.getSize() - 1;
        // The broadcast before the kill, and the survivors' failed broadcasts ({@value #KILL_CASE}).
        report.plan(rank == victim ? 1 : 2);
        HierarchicalBcast hb = HierarchicalBcast.create(world);
        ByteBuffer data = ByteBuffer.allocateDirect(64 << 20);
        // Everybody is up and connected.
        report.check("broadcast before the kill", () -> hb.bcast(data, 1 << 20, MPI.BYTE, 0));
        if (rank == victim) {
            Thread killer = new Thread(() -> {
                try {
                    Thread.sleep(20);
                    new ProcessBuilder(
                                    "kill",
                                    "-9",
                                    Long.toString(ProcessHandle.current().pid()))
                            .start()
                            .waitFor();
                } catch (Exception e) {
                    Runtime.getRuntime().halt(9);
                }
            });
            killer.start();
        }
        long start = System.nanoTime();
        for (int i = 0; i < 1000; i++) {
            try {
                hb.bcast(data, data.capacity(), MPI.BYTE, 0);
            } catch (MPIException e) {
                double seconds = (System.nanoTime() - start) / 1e9;
                report.fail(KILL_CASE, e.getMessage()).figure("seconds", seconds);
                return String.format("failed after %.1f s: %s", seconds, e.getMessage());
            }
        }
        throw new AssertionError("1000 broadcasts succeeded although rank " + victim + " was killed");
    }
}
