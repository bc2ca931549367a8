package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/**
 * Every single-rank mistake fails its call where it must, never gives wrong data, and the five calls
 * after it deliver every byte on every rank (issue 52, item 3): on the 2-host test bed, where a
 * header and the real root's chunks cross a network (rank 0 alone passing a root out of range used
 * to leave the root's chunks queued towards rank 0's host, taken by every later call), and on
 * virtual nodes of one host.
 */
class MistakeMpiTest {
    private static final int CASES = MistakeProgram.MISTAKES.length * 6;

    @Test
    void oneRanksMistakeOnTheTestBed() {
        assertOutcomes(
                MpiLaunch.program(MistakeProgram.class).ranks(4).testBed(2, 2).run(), false);
    }

    @Test
    void oneRanksMistakeOnVirtualNodes() {
        assertOutcomes(
                MpiLaunch.program(MistakeProgram.class)
                        .ranks(4)
                        .nodeSizes("2,2")
                        .run(),
                true);
    }

    /**
     * Two ranks that name each other as root, while a third is a full call board behind: the call
     * fails on every rank as roots that disagree, and every call before and after it delivers every
     * byte (the "no root" entry used to be written without room, over an entry the slow rank had not
     * read).
     */
    @Test
    void crossedRootsWhileARankIsAFullBoardBehind() {
        MpiOutcome out = MpiLaunch.program(SlowReaderProgram.class).ranks(4).run();
        out.assertAllRanksOk()
                .assertCasesOnEveryRank(SlowReaderProgram.SMALL_CALLS + SlowReaderProgram.AFTER)
                .assertNoLeakedSegments();
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
        out.assertAllRanksOk().assertCasesOnEveryRank(CASES).assertNoLeakedSegments();
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
}
