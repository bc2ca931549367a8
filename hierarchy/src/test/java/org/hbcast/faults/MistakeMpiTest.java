package org.hbcast.faults;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/**
 * Every single-rank mistake fails its call where it must, never gives wrong data, and the five calls
 * after it deliver every byte on every rank (issue 52, item 3): on the 2-host test bed, where a
 * header and the real root's chunks cross a network (rank 0 alone passing a root out of range used
 * to leave the root's chunks queued towards rank 0's host, taken by every later call), and on
 * virtual nodes of one host.
 */
class MistakeMpiTest {
    @Test
    void oneRanksMistakeOnTheTestBed() {
        assertOutcomes(
                MpiLaunch.body(MistakeMpiTest::mistakes).layout("bed 2x2").run(), false);
    }

    @Test
    void oneRanksMistakeOnVirtualNodes() {
        assertOutcomes(MpiLaunch.body(MistakeMpiTest::mistakes).layout("2,2").run(), true);
    }

    /**
     * Two ranks that name each other as root, while a third is a full call board behind: the call
     * fails on every rank as roots that disagree, and every call before and after it delivers every
     * byte (the "no root" entry used to be written without room, over an entry the slow rank had not
     * read).
     */
    @Test
    void crossedRootsWhileARankIsAFullBoardBehind() {
        MpiOutcome out = MpiLaunch.body(MistakeMpiTest::slowReader).layout("4").run();
        out.assertAllRanksOk().assertNoLeakedSegments();
        for (int r = 0; r < 4; r++) {
            expect(out, r, "crossed", "ranks disagree on the root");
        }
    }

    /**
     * @param oneHost the ranks share one host's call board, which serialises claims: a rank with a root
     *     out of range that claims the call before the real root refuses it for every rank (nothing
     *     was sent, so nothing is left over), where across hosts only it fails
     */
    private static void assertOutcomes(MpiOutcome out, boolean oneHost) {
        out.assertAllRanksOk().assertNoLeakedSegments();
        for (int r = 0; r < 4; r++) {
            expectOkUnlessRefused(out, r, "root-rank0", 0, oneHost);
            expectOkUnlessRefused(out, r, "root-other", 3, oneHost);
            expect(out, r, "root-named", r == 2 ? "root 99 is out of range" : "error: ");
            // Nobody else can send rank 0's header: every rank fails at once, none waits for it.
            expect(out, r, "root-zero", r == 0 ? "root 4 is out of range" : "rank 0 refused call");
            expect(out, r, "root-all", "root 5 is out of range");
            expect(out, r, "count", r == 3 ? "count -5 " : "ok");
            expect(out, r, "datatype", r == 1 ? "MPI.INT2 is not supported" : "ok");
            // Every failure carries an MPI error class: a bad argument here, a peer's refusal elsewhere.
            assertEquals(
                    "MPI_ERR_ARG", out.note(r, "root-all.class"), out.describe("rank " + r + ", root-all's class"));
        }
        assertEquals("MPI_ERR_ARG", out.note(3, "count.class"), out.describe("rank 3, count's class"));
    }

    /** Out of range on {@code mistaken} only: it fails; the others get the data (or, on one host, its refusal). */
    private static void expectOkUnlessRefused(MpiOutcome out, int r, String mistake, int mistaken, boolean oneHost) {
        if (r == mistaken) {
            expect(out, r, mistake, "root 4 is out of range");
        } else if (!oneHost || !out.note(r, mistake).contains("rank " + mistaken + " refused call")) {
            expect(out, r, mistake, "ok");
        }
    }

    private static void expect(MpiOutcome out, int rank, String mistake, String fragment) {
        String note = out.note(rank, mistake);
        assertTrue(
                fragment.equals("ok") ? note.equals("ok") : note.contains(fragment),
                out.describe("rank " + rank + ", " + mistake + ": expected '" + fragment + "', got '" + note + "'"));
    }

    static final String[] MISTAKES = {
        "root-rank0", "root-other", "root-named", "root-zero", "root-all", "count", "datatype"
    };
    private static final int INTS = 1 << 20;
    private static final int AFTER = 5;

    /**
     * On every rank: each mistake ({@link #MISTAKES}, or {@code mistakes=}) is a broadcast of 4 MiB in
     * which some ranks pass a wrong argument; every rank notes what its call gave ({@code ok} with
     * every byte checked, or the error), then five correct broadcasts of 4 MiB from changing roots
     * must deliver every byte on every rank. The real root on the second half (the other host on the
     * 2-host test bed). Cases per mistake: its call's outcome, noted as {@code <mistake>}, and the
     * calls after it.
     *
     * <ul>
     *   <li>{@code root-rank0}: rank 0 passes a root out of range, the others root 2;
     *   <li>{@code root-other}: rank 3 passes a root out of range, the others root 0;
     *   <li>{@code root-named}: the root the others name (2) passes one out of range;
     *   <li>{@code root-zero}: rank 0 passes a root out of range, the others name rank 0;
     *   <li>{@code root-all}: every rank passes a root out of range;
     *   <li>{@code count}: rank 3's count is negative;
     *   <li>{@code datatype}: rank 1 passes a datatype hbcast does not support.
     * </ul>
     */
    static void mistakes(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        String[] mistakes = ranks.arg("mistakes", String.join(",", MISTAKES)).split(",");
        // Each mistake's outcome and the calls after it.
        report.plan(mistakes.length * (1 + AFTER));
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            long seed = 1;
            for (String m : mistakes) {
                mistake(hb, world, report, m, seed++);
                for (int i = 0; i < AFTER; i++) {
                    Broadcasts.check(report, hb, world, Payload.Kind.ARRAY, ElementType.INT, INTS, (i + 1) % 4, seed++);
                }
            }
        }
    }

    /**
     * On one node of four: rank 3 sleeps 2 s, while rank 0 broadcasts {@link #SMALL_CALLS} calls of 8
     * bytes, which ride in the board's entries, so rank 0 runs that far ahead; then rank 0 names root
     * 1 and rank 1 root 0 (the others 0): the first of them to see the other waiting claims the call
     * with no root, an entry that may not overwrite the one rank 3 has not read. Cases: the small
     * calls, then five calls of 4 KiB after the crossed one; the crossed call's outcome is noted as
     * {@code crossed}.
     */
    static void slowReader(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        int rank = world.getRank();
        // The small calls and those after the crossed one.
        report.plan(SMALL_CALLS + AFTER);
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            if (rank == 3) {
                Thread.sleep(2_000);
            }
            long seed = 1;
            for (int i = 0; i < SMALL_CALLS; i++) {
                Broadcasts.check(report, hb, world, Payload.Kind.ARRAY, ElementType.INT, 2, 0, seed++);
            }
            int crossedRoot = rank == 0 ? 1 : 0;
            Payload p = new Payload(Payload.Kind.ARRAY, ElementType.INT, 2);
            p.fillStale();
            String outcome;
            try {
                hb.bcast(p.container, 2, OpenMpi.datatype(ElementType.INT.basicType()), crossedRoot);
                outcome = "no error";
            } catch (mpi.MPIException e) {
                outcome = e.getMessage();
            }
            report.note("crossed", outcome);
            for (int i = 0; i < AFTER; i++) {
                Broadcasts.check(report, hb, world, Payload.Kind.ARRAY, ElementType.INT, 1024, i % 4, seed++);
            }
        }
    }

    private static void mistake(HierarchicalBcast hb, Intracomm world, RankReport report, String m, long seed)
            throws Exception {
        int rank = world.getRank();
        int size = world.getSize();
        int root = 0;
        int count = INTS;
        Datatype type = MPI.INT;
        switch (m) {
            case "root-rank0" -> root = rank == 0 ? size : 2;
            case "root-other" -> root = rank == 3 ? size : 0;
            case "root-named" -> root = rank == 2 ? 99 : 2;
            case "root-zero" -> root = rank == 0 ? size : 0;
            case "root-all" -> root = size + 1;
            case "count" -> count = rank == 3 ? -5 : INTS;
            case "datatype" -> type = rank == 1 ? MPI.INT2 : MPI.INT;
            default -> throw new IllegalArgumentException("no mistake " + m);
        }
        int realRoot = root;
        Payload p = new Payload(Payload.Kind.ARRAY, ElementType.INT, INTS);
        boolean isRoot = rank == root;
        if (isRoot) {
            p.fillPattern(INTS, seed);
        } else {
            p.fillStale();
        }
        String outcome;
        try {
            hb.bcast(p.container, count, type, realRoot);
            String problem = p.verify(INTS, seed, isRoot);
            outcome = problem == null ? "ok" : "WRONG DATA: " + problem;
        } catch (MPIException e) {
            outcome = "error: " + e.getMessage();
            report.note(m + ".class", OpenMpi.errorClass(e).mpiName());
        }
        report.note(m, outcome);
        if (outcome.startsWith("WRONG")) {
            report.fail(m, outcome);
        } else {
            report.pass(m);
        }
    }

    static final int SMALL_CALLS = 64;
}
