package org.hbcast.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.hbcast.mpi.port.MpiFailure;
import org.junit.jupiter.api.Test;

/**
 * The verdict of a call's agreement, from every rank's view of the all-reduced words: the words are
 * reduced here as MPI's MAX would, from each rank's contribution, so every rank must reach the same
 * outcome, and it must be Open MPI's contract (see {@link CountRule}).
 */
class CallAgreementTest {

    /** One rank's arguments. */
    private record Call(long bytes, ElementType type, int root) {}

    @Test
    void equalCountsMoveThemEverywhere() throws MpiFailure {
        List<Call> calls = List.of(
                new Call(4000, ElementType.DOUBLE, 2),
                new Call(4000, ElementType.DOUBLE, 2),
                new Call(4000, ElementType.DOUBLE, 2));
        for (CountRule rule : List.of(CountRule.ROOT, CountRule.EQUAL)) {
            for (int r = 0; r < calls.size(); r++) {
                assertEquals(4000, verdict(calls, r, rule));
            }
        }
    }

    @Test
    void receiversThatPassedMoreGetTheRootsBytes() throws MpiFailure {
        // The case: a name of 14 bytes into fixed 256-byte buffers.
        List<Call> calls = List.of(
                new Call(14, ElementType.BYTE, 0),
                new Call(256, ElementType.BYTE, 0),
                new Call(256, ElementType.BYTE, 0),
                new Call(1 << 20, ElementType.BYTE, 0));
        for (int r = 0; r < calls.size(); r++) {
            assertEquals(14, verdict(calls, r, CountRule.ROOT));
        }
        for (int r = 0; r < calls.size(); r++) {
            assertFails(calls, r, CountRule.EQUAL, "check mode: ranks disagree on the call (bytes from 14 to 1048576");
        }
    }

    @Test
    void aReceiverThatPassedLessFailsEverywhereNamingBothCounts() {
        List<Call> calls = List.of(
                new Call(64, ElementType.INT, 1),
                new Call(80, ElementType.INT, 1),
                new Call(80, ElementType.INT, 1),
                new Call(40, ElementType.INT, 1));
        assertFails(
                calls,
                3,
                CountRule.ROOT,
                "hbcast bcast on rank 3: message truncated: root 1 sends 80 bytes (20 of its"
                        + " 4-byte elements) but this rank's count of 10 MPI.INT holds only 40 bytes; nothing was sent");
        assertFails(
                calls,
                0,
                CountRule.ROOT,
                "hbcast bcast on rank 0: message truncated: root 1 sends 80 bytes (20 of its"
                        + " 4-byte elements) but this rank's count of 16 MPI.INT holds only 64 bytes; nothing was sent");
        for (int r : new int[] {1, 2}) {
            assertFails(
                    calls,
                    r,
                    CountRule.ROOT,
                    "message truncated on rank 3: root 1 sends 80 bytes (20 of its 4-byte"
                            + " elements) but that rank's count holds only 40 bytes; nothing was sent");
        }
    }

    @Test
    void ranksThatNameDifferentRootsFailEverywhere() {
        List<Call> calls = List.of(
                new Call(8, ElementType.BYTE, 0), new Call(8, ElementType.BYTE, 0), new Call(8, ElementType.BYTE, 2));
        for (CountRule rule : List.of(CountRule.ROOT, CountRule.EQUAL)) {
            for (int r = 0; r < calls.size(); r++) {
                assertFails(
                        calls,
                        r,
                        rule,
                        "hbcast bcast on rank " + r + ": ranks disagree on the root: they passed roots"
                                + " from 0 to 2, this rank passed "
                                + calls.get(r).root() + "; nothing was sent");
            }
        }
    }

    @Test
    void rootBytesThatAreNoWholeNumberOfAReceiversElementsFailEverywhere() throws MpiFailure {
        List<Call> calls = List.of(
                new Call(12, ElementType.INT, 0), new Call(16, ElementType.LONG, 0), new Call(12, ElementType.BYTE, 0));
        assertFails(
                calls,
                1,
                CountRule.ROOT,
                "datatype mismatch: root 0 sends 12 bytes of 4-byte elements, not a whole"
                        + " number of the elements of this rank's MPI.LONG (8 bytes)");
        assertFails(calls, 0, CountRule.ROOT, "not a whole number of the elements of another rank's 8-byte datatype");
        assertFails(calls, 2, CountRule.ROOT, "not a whole number of the elements of another rank's 8-byte datatype");
        // Bytes that split into whole elements everywhere pass, as they do in Open MPI.
        List<Call> whole = List.of(
                new Call(16, ElementType.INT, 0), new Call(16, ElementType.LONG, 0), new Call(32, ElementType.BYTE, 0));
        for (int r = 0; r < whole.size(); r++) {
            assertEquals(16, verdict(whole, r, CountRule.ROOT));
        }
    }

    @Test
    void aRankThatRefusedItsArgumentsStillJoinsAndEveryOtherRankFailsTheCall() {
        long[] reduced = words(0, 64, ElementType.INT, 0);
        long[][] others = {refusedWords(1, 0), words(2, 64, ElementType.INT, 0), refusedWords(3, 7)};
        for (long[] w : others) {
            for (int i = 0; i < w.length; i++) {
                reduced[i] = Math.max(reduced[i], w[i]);
            }
        }
        for (int r : new int[] {0, 2}) {
            MpiFailure e = assertThrows(
                    MpiFailure.class, () -> CallAgreement.verdict(reduced, r, 64, ElementType.INT, 0, CountRule.ROOT));
            assertTrue(
                    e.getMessage()
                            .contains("rank 3 refused the call (a bad argument there, see its error); nothing"
                                    + " was sent"),
                    e.getMessage());
        }
    }

    @Test
    void zeroBytesAtTheRootMoveNothingWhateverTheReceiversPassed() throws MpiFailure {
        List<Call> calls = List.of(
                new Call(0, ElementType.DOUBLE, 1),
                new Call(0, ElementType.DOUBLE, 1),
                new Call(800, ElementType.DOUBLE, 1));
        for (int r = 0; r < calls.size(); r++) {
            assertEquals(0, verdict(calls, r, CountRule.ROOT));
        }
        List<Call> rootSends = List.of(new Call(0, ElementType.DOUBLE, 1), new Call(8, ElementType.DOUBLE, 1));
        assertFails(rootSends, 0, CountRule.ROOT, "this rank's count of 0 MPI.DOUBLE holds only 0 bytes");
    }

    /**
     * Random calls of up to 40 ranks: every rank reaches the same outcome (the same bytes, or an error
     * in all), which is what Open MPI's contract says it should be.
     */
    @Test
    void everyRankReachesTheSameOutcomeAndItIsTheContract() throws MpiFailure {
        Random rnd = new Random(24);
        ElementType[] types = ElementType.values();
        int agreed = 0;
        for (int c = 0; c < 5000; c++) {
            int n = 1 + rnd.nextInt(40);
            int root = rnd.nextInt(n);
            List<Call> calls = new ArrayList<>();
            long rootBytes = rnd.nextInt(5) * 16L * rnd.nextInt(100);
            for (int r = 0; r < n; r++) {
                ElementType t = rnd.nextInt(8) == 0 ? types[rnd.nextInt(types.length)] : ElementType.INT;
                long bytes = r == root ? rootBytes : rootBytes + (rnd.nextInt(6) == 0 ? rnd.nextInt(64) - 32 : 0);
                bytes = Math.max(0, bytes - bytes % t.bytes());
                int passedRoot = rnd.nextInt(50) == 0 ? rnd.nextInt(n) : root;
                calls.add(new Call(bytes, t, passedRoot));
            }
            String expected = expectedOutcome(calls, root);
            for (int r = 0; r < n; r++) {
                String got;
                try {
                    got = Long.toString(verdict(calls, r, CountRule.ROOT));
                } catch (MpiFailure e) {
                    got = e.getMessage().contains("ranks disagree on the root")
                            ? "root"
                            : e.getMessage().contains("truncated")
                                    ? "truncated"
                                    : e.getMessage().contains("datatype mismatch") ? "datatype" : e.getMessage();
                }
                assertEquals(expected, got, "case " + c + " rank " + r + " of " + calls);
            }
            agreed += expected.equals(Long.toString(rootBytes)) ? 1 : 0;
        }
        assertTrue(agreed > 1000 && agreed < 4900, "both outcomes covered: " + agreed + " of 5000 moved data");
    }

    private static String expectedOutcome(List<Call> calls, int root) {
        if (calls.stream().anyMatch(c -> c.root() != calls.get(0).root())) {
            return "root";
        }
        long rootBytes = calls.get(calls.get(0).root()).bytes();
        for (int r = 0; r < calls.size(); r++) {
            if (r != calls.get(0).root() && calls.get(r).bytes() < rootBytes) {
                return "truncated";
            }
        }
        return calls.stream().allMatch(c -> rootBytes % c.type().bytes() == 0) ? Long.toString(rootBytes) : "datatype";
    }

    private static void assertFails(List<Call> calls, int rank, CountRule rule, String fragment) {
        MpiFailure e = assertThrows(MpiFailure.class, () -> verdict(calls, rank, rule));
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    /** What rank {@code rank} concludes once the words of every rank are all-reduced with MAX. */
    private static long verdict(List<Call> calls, int rank, CountRule rule) throws MpiFailure {
        long[] reduced = null;
        for (int r = 0; r < calls.size(); r++) {
            Call c = calls.get(r);
            long[] w = words(r, c.bytes(), c.type(), c.root());
            if (reduced == null) {
                reduced = w;
            } else {
                for (int i = 0; i < w.length; i++) {
                    reduced[i] = Math.max(reduced[i], w[i]);
                }
            }
        }
        Call mine = calls.get(rank);
        return CallAgreement.verdict(reduced, rank, mine.bytes(), mine.type(), mine.root(), rule);
    }

    /** {@link CallAgreement#fill} into new words, to reduce them as MPI would. */
    private static long[] words(int rank, long bytes, ElementType type, int root) {
        long[] w = new long[CallAgreement.WORDS];
        CallAgreement.fill(w, rank, bytes, type, root);
        return w;
    }

    /** {@link CallAgreement#fillRefused} into new words. */
    private static long[] refusedWords(int rank, int root) {
        long[] w = new long[CallAgreement.WORDS];
        CallAgreement.fillRefused(w, rank, root);
        return w;
    }
}
