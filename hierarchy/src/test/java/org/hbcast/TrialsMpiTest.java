package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;

/** {@code auto}'s in-run selection on real launches (see {@link TrialsProgram}): data right while trying, verdicts alike, kept. */
class TrialsMpiTest {

    private static final int[] SIZES = {3000, 40_000, 700_000};

    /**
     * Every rank ran every case of {@link TrialsProgram} and decided every size alike.
     *
     * @param kept whether the verdicts were to be kept (default options): then rank 0 checks the
     *             file and every rank a new instance on each size, else every rank that nothing was kept
     */
    private static void assertDecidedAlike(MpiOutcome out, int ranks, boolean headerOption, boolean kept) {
        out.assertAllRanksOk();
        // The checked calls, each size decided, the verdicts compared.
        int cases = TrialsProgram.CALLS_PER_SIZE * SIZES.length + SIZES.length + 1;
        for (int r = 0; r < ranks; r++) {
            out.assertCases(r, cases + (kept ? 2 * SIZES.length + (r == 0 ? 1 : 0) : 1));
        }
        for (int bytes : SIZES) {
            String first = out.note(0, "decided " + bytes);
            for (int r = 1; r < ranks; r++) {
                assertEquals(first, out.note(r, "decided " + bytes), out.describe("rank " + r + ", " + bytes + " B"));
            }
            if (!headerOption) {
                assertTrue(!first.contains("inline"), out.describe("no header, no inline option"));
            }
        }
        System.out.println(out.result(0).notes());
    }

    /** On one host the header carries what it can untried: only the size past it is tried. */
    @Test
    void oneNodeOfFour() {
        assertDecidedAlike(
                MpiLaunch.program(TrialsProgram.class)
                        .ranks(4)
                        .args("untried=3000,40000")
                        .run(),
                4,
                true,
                true);
    }

    /** Virtual nodes of one host try nothing: the header carries what it can, Open MPI's bcast the rest. */
    @Test
    void unevenVirtualNodes() {
        assertDecidedAlike(
                MpiLaunch.program(TrialsProgram.class)
                        .nodeSizes("2,1,2")
                        .args("untried=3000,40000,700000")
                        .run(),
                5,
                true,
                true);
    }

    /** Without the header the sizes below its capacity are tried, on uneven nodes. */
    @Test
    void withEqualCountsThereIsNoHeaderToRideIn() {
        assertDecidedAlike(
                MpiLaunch.program(TrialsProgram.class)
                        .nodeSizes("2,1,2")
                        .env("HBCAST_COUNTS", "equal")
                        .args("kept=no", "untried=700000")
                        .run(),
                5,
                false,
                false);
    }
}
