package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.Plan;
import org.junit.jupiter.api.Test;

class TrialScheduleTest {
    private static final Plan NATIVE = new Plan(Algorithm.NATIVE, 1 << 20, 2, IntraNode.RING, "t");
    private static final Plan TREE = new Plan(Algorithm.KNOMIAL, 8192, 4, IntraNode.RING, "t");
    private static final Plan RING = new Plan(Algorithm.HIERARCHICAL, 65536, 4, IntraNode.RING, "t");
    private static final Plan FANOUT = new Plan(Algorithm.HIERARCHICAL, 65536, 4, IntraNode.FANOUT, "t");
    private static final Plan FALLBACK = new Plan(Algorithm.KNOMIAL, 64, 2, IntraNode.RING, "fallback");
    /** Class 12 (2..4 KiB) may ride in the header; class 20 (0.5..1 MiB) has plans only; the rest do not try. */
    private static final int SMALL = 12;

    private static final int LARGE = 20;

    private static TrialSchedule schedule() {
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        boolean[] inline = new boolean[TrialSchedule.CLASSES];
        Arrays.fill(plans, new Plan[0]);
        plans[SMALL] = new Plan[] {NATIVE, FANOUT};
        inline[SMALL] = true;
        plans[LARGE] = new Plan[] {NATIVE, TREE, RING, FANOUT};
        int[] incumbent = new int[TrialSchedule.CLASSES];
        incumbent[LARGE] = 3;
        return new TrialSchedule(plans, inline, incumbent);
    }

    /** A schedule whose two trying classes have run their incumbent's first calls: the next call of each tries. */
    private static TrialSchedule trying() {
        TrialSchedule s = schedule();
        for (int c : new int[] {SMALL, LARGE}) {
            for (long i = 0; i < TrialSchedule.FIRST_TRIAL_AFTER; i++) {
                assertFalse(s.exploring(c));
                assertEquals(c == LARGE ? 3 : 0, s.option(c));
                assertEquals(TrialSchedule.GO_ON, s.record(c, 1));
            }
            assertTrue(s.exploring(c));
        }
        return s;
    }

    @Test
    void theFirstCallsOfAClassRunTheModelsChoice() {
        TrialSchedule s = schedule();
        assertSame(FANOUT, s.plan(LARGE, FALLBACK));
        assertTrue(s.inlines(3000));
        assertEquals(-1, s.agreedNanos(LARGE), "nothing decided by this run yet");
        trying();
    }

    @Test
    void sizeClassesAreHalfOpenFromBelow() {
        assertEquals(0, TrialSchedule.sizeClass(0));
        assertEquals(0, TrialSchedule.sizeClass(1));
        assertEquals(1, TrialSchedule.sizeClass(2));
        assertEquals(2, TrialSchedule.sizeClass(3));
        for (int k = 1; k < 62; k++) {
            assertEquals(k, TrialSchedule.sizeClass(1L << k), "2^" + k);
            assertEquals(k + 1, TrialSchedule.sizeClass((1L << k) + 1), "2^" + k + "+1");
            if (k > 1) {
                assertEquals(k, TrialSchedule.sizeClass((1L << k) - 1), "2^" + k + "-1");
            }
        }
        // The header's payload (32 KiB) closes a class, so no class straddles it.
        assertEquals(15, TrialSchedule.sizeClass(32 << 10));
        assertEquals(16, TrialSchedule.sizeClass((32 << 10) + 1));
    }

    @Test
    void eachOptionRunsInTurnThenTheFastestIsKept() {
        TrialSchedule s = trying();
        int n = s.options(LARGE);
        assertEquals(4, n);
        int block = TrialSchedule.blockCalls(LARGE);
        int calls = n * block * TrialSchedule.PASSES;
        for (int call = 0; call < calls; call++) {
            assertEquals(call / block % n, s.option(LARGE), "call " + call);
            assertTrue(s.exploring(LARGE));
            int expected = call == calls - 1
                    ? TrialSchedule.VERDICT_DUE
                    : (call + 1) % block == 0 ? TrialSchedule.BLOCK_ENDED : TrialSchedule.GO_ON;
            // Option 2 (the ring) is fastest; every option's times vary from call to call.
            long nanos = (s.option(LARGE) == 2 ? 1000 : 5000) + call;
            assertEquals(expected, s.record(LARGE, nanos), "call " + call);
        }
        long[] medians = new long[TrialSchedule.MAX_OPTIONS];
        s.summarize(LARGE, medians);
        for (int o = 0; o < n; o++) {
            long perCall = medians[o] / block;
            assertTrue(o == 2 ? perCall < 2000 : perCall >= 5000, "option " + o + ": " + medians[o]);
        }
        long[] agreed = {50, 40, 10, 30};
        s.decide(LARGE, agreed);
        assertEquals(2, s.winner(LARGE));
        assertSame(RING, s.plan(LARGE, FALLBACK));
        assertEquals(10, s.agreedNanos(LARGE));
    }

    @Test
    void blocksAreShortPastTwoMebibytes() {
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            boolean large = c > 0 && (1L << (c - 1)) >= TrialSchedule.SHORT_BLOCKS_ABOVE;
            assertEquals(
                    large ? TrialSchedule.SHORT_BLOCK : TrialSchedule.BLOCK, TrialSchedule.blockCalls(c), "class " + c);
        }
        assertEquals(TrialSchedule.BLOCK, TrialSchedule.blockCalls(TrialSchedule.sizeClass(2 << 20)));
        assertEquals(TrialSchedule.SHORT_BLOCK, TrialSchedule.blockCalls(TrialSchedule.sizeClass((2 << 20) + 1)));
        assertEquals(TrialSchedule.BLOCK, TrialSchedule.blockCalls(LARGE));
    }

    @Test
    void aLargeClassTriesInShortBlocks() {
        int huge = TrialSchedule.sizeClass(8 << 20);
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        Arrays.fill(plans, new Plan[0]);
        plans[huge] = new Plan[] {NATIVE, TREE, FANOUT};
        TrialSchedule s = new TrialSchedule(plans, new boolean[TrialSchedule.CLASSES], new int[TrialSchedule.CLASSES]);
        for (long i = 0; i < TrialSchedule.FIRST_TRIAL_AFTER; i++) {
            s.record(huge, 1);
        }
        int calls = 3 * TrialSchedule.SHORT_BLOCK * TrialSchedule.PASSES;
        for (int call = 0; call < calls; call++) {
            assertEquals(call / TrialSchedule.SHORT_BLOCK % 3, s.option(huge), "call " + call);
            int r = s.record(huge, s.option(huge) == 1 ? 10 : 50);
            assertEquals(
                    call == calls - 1
                            ? TrialSchedule.VERDICT_DUE
                            : (call + 1) % TrialSchedule.SHORT_BLOCK == 0
                                    ? TrialSchedule.BLOCK_ENDED
                                    : TrialSchedule.GO_ON,
                    r);
        }
        long[] out = new long[TrialSchedule.MAX_OPTIONS];
        s.summarize(huge, out);
        assertEquals(10 * TrialSchedule.SHORT_BLOCK, out[1]);
        assertEquals(50 * TrialSchedule.SHORT_BLOCK, out[0]);
    }

    @Test
    void eachOptionCountsItsFastestBlock() {
        TrialSchedule s = trying();
        int n = s.options(SMALL);
        // Per option, the time of each call of its block in each pass.
        long[][] times = {{7, 1}, {300, 100}, {5, 500}};
        for (int p = 0; p < TrialSchedule.PASSES; p++) {
            for (int o = 0; o < n; o++) {
                for (int k = 0; k < TrialSchedule.BLOCK; k++) {
                    assertEquals(o, s.option(SMALL));
                    s.record(SMALL, times[o][p]);
                }
            }
        }
        long[] out = new long[TrialSchedule.MAX_OPTIONS];
        s.summarize(SMALL, out);
        assertEquals(1 * TrialSchedule.BLOCK, out[0]);
        assertEquals(100 * TrialSchedule.BLOCK, out[1]);
        assertEquals(5 * TrialSchedule.BLOCK, out[2]); // a slow block does not count
    }

    @Test
    void aTieKeepsTheIncumbentAndTheHeaderIsOptionZero() {
        TrialSchedule s = trying();
        while (s.record(SMALL, 1) != TrialSchedule.VERDICT_DUE) {
            assertTrue(s.exploring(SMALL));
        }
        s.decide(SMALL, new long[] {5, 5, 5});
        assertEquals(0, s.winner(SMALL));
        assertTrue(s.inlineOption(SMALL, 0));
        assertTrue(s.inlines(3000));
        assertSame(FALLBACK, s.plan(SMALL, FALLBACK));
    }

    @Test
    void aChallengerMustBeatTheIncumbentByTheMargin() {
        for (long challenger : new long[] {1000, 950, 920, 900, 800}) {
            TrialSchedule s = trying();
            while (s.record(LARGE, 1) != TrialSchedule.VERDICT_DUE) {
                assertTrue(s.exploring(LARGE));
            }
            s.decide(LARGE, new long[] {5000, challenger, 5000, 1000});
            boolean replaced = challenger * (1 + TrialSchedule.MARGIN) < 1000;
            assertEquals(replaced ? 1 : 3, s.winner(LARGE), "challenger " + challenger);
            assertFalse(s.exploring(LARGE));
        }
    }

    @Test
    void whileTryingTheHeaderCarriesOnlyOnItsTurn() {
        TrialSchedule s = trying();
        for (int k = 0; k < TrialSchedule.BLOCK; k++) {
            assertTrue(s.inlines(4096)); // option 0: the header
            assertSame(FALLBACK, s.plan(SMALL, FALLBACK));
            s.record(SMALL, 1);
        }
        for (int k = 0; k < TrialSchedule.BLOCK; k++) {
            assertFalse(s.inlines(4096)); // option 1: native
            assertSame(NATIVE, s.plan(SMALL, FALLBACK));
            s.record(SMALL, 1);
        }
        assertSame(FANOUT, s.plan(SMALL, FALLBACK));
        // Classes that do not try keep the default: the header up to its untried size, the selector's plan.
        assertTrue(s.inlines(100));
        assertTrue(s.inlines(TrialSchedule.UNTRIED_INLINE_BYTES));
        assertFalse(s.inlines(TrialSchedule.UNTRIED_INLINE_BYTES + 1));
        assertSame(FALLBACK, s.plan(3, FALLBACK));
        assertEquals(TrialSchedule.GO_ON, s.record(3, 1));
        assertEquals(-1, s.winner(3));
    }

    @Test
    void aDecidedClassIsTriedAgainRarelyAndEverLessOften() {
        TrialSchedule s = trying();
        long interval = TrialSchedule.FIRST_RECHECK;
        for (int round = 0; round < 3; round++) {
            int n = s.options(LARGE);
            int calls = 0;
            while (s.record(LARGE, 1) != TrialSchedule.VERDICT_DUE) {
                calls++;
            }
            assertEquals(n * TrialSchedule.blockCalls(LARGE) * TrialSchedule.PASSES - 1, calls);
            s.decide(LARGE, new long[] {9, 9, round == 1 ? 1 : 9, 9});
            int kept = round == 1 ? 2 : 3;
            for (long i = 0; i < interval - 1; i++) {
                assertEquals(TrialSchedule.GO_ON, s.record(LARGE, 1));
                assertEquals(kept, s.option(LARGE));
            }
            assertEquals(TrialSchedule.GO_ON, s.record(LARGE, 1));
            assertEquals(-1, s.winner(LARGE), "tries again after " + interval + " calls");
            interval *= 2;
        }
    }

    @Test
    void whatWasKeptIsKnownWhileARecheckRuns() {
        TrialSchedule s = trying();
        assertEquals(-1, s.settled(LARGE));
        while (s.record(LARGE, 1) != TrialSchedule.VERDICT_DUE) {
            assertEquals(-1, s.settled(LARGE));
        }
        s.decide(LARGE, new long[] {9, 1, 9, 9});
        for (long i = 0; i < TrialSchedule.FIRST_RECHECK; i++) {
            s.record(LARGE, 1);
        }
        assertTrue(s.exploring(LARGE), "re-checking");
        assertEquals(-1, s.winner(LARGE));
        assertEquals(1, s.settled(LARGE), "the last verdict is still what this run learnt");
    }

    @Test
    void pausedCallsDoNotCount() {
        TrialSchedule s = trying();
        s.pause(true);
        for (int i = 0; i < 100; i++) {
            assertEquals(TrialSchedule.GO_ON, s.record(LARGE, 1));
        }
        assertEquals(0, s.option(LARGE));
        s.pause(false);
        for (int k = 0; k < TrialSchedule.blockCalls(LARGE); k++) {
            s.record(LARGE, 1);
        }
        assertEquals(1, s.option(LARGE));
    }

    @Test
    void whatAnEarlierRunLearntIsTheIncumbent() {
        TrialSchedule s = schedule();
        s.adopt(LARGE, 1);
        s.adopt(SMALL, 7); // out of range: ignored
        s.adopt(5, 0); // does not try: ignored
        assertEquals(-1, s.winner(5));
        for (long i = 0; i < TrialSchedule.FIRST_TRIAL_AFTER; i++) {
            assertSame(TREE, s.plan(LARGE, FALLBACK));
            assertTrue(s.inlines(3000));
            s.record(LARGE, 1);
            s.record(SMALL, 1);
        }
        assertEquals(-1, s.agreedNanos(LARGE));
        while (s.record(LARGE, 1) != TrialSchedule.VERDICT_DUE) {
            assertTrue(s.exploring(LARGE));
        }
        s.decide(LARGE, new long[] {5000, 1000, 5000, 950}); // the model's old choice, within the margin
        assertEquals(1, s.winner(LARGE));
    }

    /** Ranks time differently, but see the same calls and agree on the same maxima: they choose alike at every call. */
    @Test
    void ranksWithDifferentTimesMakeTheSameChoicesAtEveryCall() {
        Random random = new Random(42);
        int ranks = 5;
        TrialSchedule[] s = new TrialSchedule[ranks];
        for (int r = 0; r < ranks; r++) {
            s[r] = schedule();
        }
        long[][] medians = new long[ranks][TrialSchedule.MAX_OPTIONS];
        int verdicts = 0;
        for (int call = 0; call < 60_000; call++) {
            long bytes = random.nextInt(4) == 0 ? 3000 : random.nextInt(2) == 0 ? 700_000 : random.nextInt(1 << 12);
            int c = TrialSchedule.sizeClass(bytes);
            int option = s[0].option(c);
            boolean inline = s[0].inlines(bytes);
            boolean due = false;
            for (int r = 0; r < ranks; r++) {
                assertEquals(option, s[r].option(c), "call " + call + " rank " + r);
                assertEquals(inline, s[r].inlines(bytes));
                boolean d = s[r].record(c, 1 + random.nextInt(1000)) == TrialSchedule.VERDICT_DUE;
                assertTrue(r == 0 || d == due);
                due = d;
            }
            if (due) {
                verdicts++;
                long[] agreed = new long[TrialSchedule.MAX_OPTIONS];
                for (int r = 0; r < ranks; r++) {
                    s[r].summarize(c, medians[r]);
                    for (int o = 0; o < s[r].options(c); o++) {
                        agreed[o] = Math.max(agreed[o], medians[r][o]);
                    }
                }
                for (int r = 0; r < ranks; r++) {
                    s[r].decide(c, agreed.clone());
                }
            }
        }
        assertTrue(verdicts >= 4, "verdicts " + verdicts);
        for (int r = 1; r < ranks; r++) {
            for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                assertEquals(s[0].winner(c), s[r].winner(c));
            }
        }
    }

    @Test
    void badShapesAreRefused() {
        assertThrows(
                IllegalArgumentException.class, () -> new TrialSchedule(new Plan[3][], new boolean[3], new int[3]));
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        Arrays.fill(plans, new Plan[] {NATIVE, TREE, RING, FANOUT, NATIVE, TREE});
        boolean[] inline = new boolean[TrialSchedule.CLASSES];
        inline[0] = true;
        assertThrows(
                IllegalArgumentException.class, () -> new TrialSchedule(plans, inline, new int[TrialSchedule.CLASSES]));
        Plan[][] four = new Plan[TrialSchedule.CLASSES][];
        Arrays.fill(four, new Plan[] {NATIVE, TREE});
        int[] beyond = new int[TrialSchedule.CLASSES];
        beyond[7] = 2;
        assertThrows(
                IllegalArgumentException.class,
                () -> new TrialSchedule(four, new boolean[TrialSchedule.CLASSES], beyond));
    }
}
