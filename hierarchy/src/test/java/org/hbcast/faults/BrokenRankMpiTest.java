package org.hbcast.faults;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import mpi.MPI;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/**
 * A throwable other than an {@code MPIException} in the middle of a call (issue 52): here rank 3
 * cannot copy a 16 MiB array into direct memory after the header. It used to leave rank 3 out of the
 * plan with its instance usable, so its next call took its peers' messages as its own. Now its
 * instance stops (its next call fails at once, naming the cause), its ring neighbour learns it from
 * the aborted ring, and the root on the other node from rank 3's stop notice, instead of waiting for
 * it: no time-out is set, none is needed, and no rank gets wrong data.
 */
class BrokenRankMpiTest {

    @Test
    void aRankThatFailsInsideACallStopsAndItsNodeSeesIt() {
        MpiOutcome out = MpiLaunch.body(BrokenRankMpiTest::twoCalls)
                .layout("2,2")
                .finish(MpiTestProgram.Finish.EXIT_WHEN_ALL_REPORTED)
                .env("HBCAST_ALGORITHM", "hierarchical")
                .env("HBCAST_INTRA", "ring")
                .rankJvmOption(3, "-XX:MaxDirectMemorySize=6m")
                .run()
                .assertPlannedCasesOnEveryRank();
        for (int r = 1; r < 4; r++) {
            assertFalse(out.note(r, "first").startsWith("WRONG"), out.describe("rank " + r));
            assertFalse(out.note(r, "second").startsWith("WRONG"), out.describe("rank " + r));
        }
        assertTrue(out.note(3, "first").contains("OutOfMemoryError"), out.describe("rank 3, first call"));
        assertTrue(
                out.note(3, "second").contains("unusable after an earlier failure")
                        && out.note(3, "second").contains("OutOfMemoryError"),
                out.describe("rank 3, second call"));
        assertTrue(out.note(2, "first").contains("aborted"), out.describe("rank 2, first call"));
        assertTrue(
                out.note(2, "first").endsWith("[cause RingAbortedException] [MPI_ERR_OTHER]"),
                out.describe("rank 2's failure keeps its cause and has a class"));
        assertTrue(out.note(2, "second").contains("unusable"), out.describe("rank 2, second call"));
        String heard =
                "rank 3 stopped its hbcast instance in call 1 (hbcast bcast on rank 3: java.lang.OutOfMemoryError";
        assertTrue(
                out.note(0, "first").contains(heard) || out.note(0, "second").contains(heard),
                out.describe("rank 0 hears rank 3's notice"));
        out.assertNoLeakedSegments();
    }

    private static final int INTS = 4 << 20;

    /**
     * On every rank: two broadcasts of 16 MiB arrays from rank 0, where the launch leaves one rank too
     * little direct memory to copy the array into. Each rank notes what each call gave, {@code first}
     * and {@code second} ({@code ok} with every byte checked, or the throwable), a case each: the test
     * judges the notes. Ends without finalizing, once every rank has reported: the ranks of the other
     * node may be left with a send to a rank that stopped.
     */
    static void twoCalls(Ranks ranks) throws Exception {
        // Not closed: the instance is unusable on some ranks, and the process ends without
        // finalizing; its segments were unlinked when the node connected them.
        HierarchicalBcast hb = HierarchicalBcast.create(ranks.world());
        String[] calls = {"first", "second"};
        ranks.plan(calls.length);
        for (String call : calls) {
            ranks.note(call, call(hb, ranks.world(), call.length())).pass(call);
        }
    }

    private static String call(HierarchicalBcast hb, mpi.Intracomm world, long seed) {
        Payload p = new Payload(Payload.Kind.ARRAY, ElementType.INT, INTS);
        try {
            boolean root = world.getRank() == 0;
            if (root) {
                p.fillPattern(INTS, seed);
            } else {
                p.fillStale();
            }
            hb.bcast(p.container, INTS, MPI.INT, 0);
            String problem = p.verify(INTS, seed, root);
            return problem == null ? "ok" : "WRONG DATA: " + problem;
        } catch (mpi.MPIException e) {
            // The library's failures carry their cause and an MPI error class.
            Throwable first = e;
            while (first.getCause() != null) {
                first = first.getCause();
            }
            return e + (first != e ? " [cause " + first.getClass().getSimpleName() + "]" : "") + " ["
                    + org.hbcast.mpi.openmpi.OpenMpi.errorClass(e).mpiName() + "]";
        } catch (Throwable t) {
            return t.toString();
        }
    }
}
