package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The leaders' schedules and their persistent requests on real launches (see {@link TreeBroadcastProgram}). */
class TreeBroadcastMpiTest {

    @ParameterizedTest(name = "{2}, {0} ranks, radix {1}")
    @CsvSource({"4, 2, knomial", "3, 3, knomial", "5, 2, chain", "6, 2, two-tree", "3, 2, two-tree"})
    void everyRootDeliversAndRequestsAreKeptPerBufferAndMadeAnewWhenItChanges(int ranks, int radix, String shape) {
        MpiOutcome out = MpiLaunch.program(TreeBroadcastProgram.class)
                .ranks(ranks)
                .args("suite=reuse", "radix=" + radix, "shape=" + shape)
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        for (int r = 0; r < ranks; r++) {
            assertTrue(out.note(r, "detail").startsWith("calls="), out.describe("rank " + r));
        }
    }

    @Test
    void anAbortedCallLeavesNothingPostedIntoTheBuffer() {
        MpiOutcome out = MpiLaunch.program(TreeBroadcastProgram.class)
                .ranks(2)
                .args("suite=abort")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        assertTrue(out.note(1, "detail").startsWith("nothing landed"), out.describe("rank 1"));
    }

    @ParameterizedTest(name = "rank 0 cuts 1 MiB into {0}-byte chunks, rank 1 into {1}")
    @CsvSource({"32768, 1048576", "1048576, 32768"})
    void ranksCuttingACallDifferentlyFailItOnTheReceiverNamingChunkLengthsAndPeer(int sender, int receiver) {
        MpiOutcome out = MpiLaunch.program(TreeBroadcastProgram.class)
                .ranks(2)
                .args("suite=cuts", "sender=" + sender, "receiver=" + receiver)
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        String failure = out.note(1, "detail");
        assertTrue(failure.startsWith("failed: "), out.describe("rank 1 did not fail"));
        for (String named :
                new String[] {"chunk 0", "expected " + receiver + " bytes", "received " + sender, "rank 0"}) {
            assertTrue(
                    failure.contains(named), out.describe("rank 1's failure does not name " + named + ": " + failure));
        }
    }

    @Test
    void messagesLeftByAnAbortedCallAreNeverTakenByTheNext() {
        MpiOutcome out = MpiLaunch.program(TreeBroadcastProgram.class)
                .ranks(2)
                .args("suite=leftover")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(1);
        String detail = out.note(1, "detail");
        assertTrue(detail.startsWith("call 2 delivered; call 3 failed: "), out.describe("rank 1"));
        assertTrue(detail.contains("call 1"), out.describe("call 3's failure does not name call 1: " + detail));
    }
}
