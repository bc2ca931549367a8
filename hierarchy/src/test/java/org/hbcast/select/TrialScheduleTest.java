package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
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
        return new TrialSchedule(
                plans, inline, incumbent, TrialSchedule.Screening.ONE_CALL, TrialSchedule.UNTRIED_INLINE_BYTES);
    }

    /** A schedule whose two trying classes have run their incumbent's first calls: the next call of each tries. */
    private static TrialSchedule trying() {
        TrialSchedule s = schedule();
        for (int c : new int[] {SMALL, LARGE}) {
            for (long i = 0; i < TrialSchedule.FIRST_TRIAL_AFTER; i++) {
                assertFalse(s.exploring(c));
                assertEquals(c == LARGE ? 3 : 0, s.option(c));
                assertEquals(
                        i < TrialSchedule.FIRST_TRIAL_AFTER - 1 ? TrialSchedule.GO_ON : TrialSchedule.BLOCK_ENDED,
                        s.record(c, 1));
            }
            leadIn(s, c);
        }
        return s;
    }

    /** The agreement that starts the trials of class {@code c}: it records nothing. */
    private static void leadIn(TrialSchedule s, int c) {
        assertTrue(s.exploring(c));
        assertTrue(s.leadingIn(c));
        assertEquals(0, s.blockNanos(c), "the incumbent's calls are not timed");
        assertFalse(s.endBlock(c, 123_456));
        assertFalse(s.leadingIn(c));
        assertEquals(0, s.option(c), "the trials start from the first option");
    }

    @Test
    void theFirstCallsOfAClassRunTheModelsChoice() {
        TrialSchedule s = schedule();
        assertSame(FANOUT, s.plan(LARGE, FALLBACK));
        assertTrue(s.inlines(3000));
        assertEquals(-1, s.agreedNanos(LARGE), "nothing decided by this run yet");
        trying();
    }

    /**
     * A call that takes no part in the trials (a non-blocking one) runs the kept option: the
     * incumbent while the class tries, whichever option is on trial, then the verdict's.
     */
    @Test
    void callsOutsideTheTrialsRunTheKeptPlanNeverAnOptionOnTrial() {
        TrialSchedule s = trying();
        long[] perCall = {100, 10, 100, 100};
        while (s.exploring(LARGE)) {
            assertSame(
                    FANOUT, s.keptPlan(LARGE, FALLBACK), "the incumbent while option " + s.option(LARGE) + " is tried");
            block(s, LARGE, perCall[s.option(LARGE)]);
        }
        assertSame(TREE, s.keptPlan(LARGE, FALLBACK), "the verdict's");
        assertSame(s.plan(LARGE, FALLBACK), s.keptPlan(LARGE, FALLBACK));
        // The header option of an inline class: its incumbent rides in the header, the plan is the fallback.
        while (s.exploring(SMALL)) {
            assertTrue(s.keptInlines(3000));
            assertSame(FALLBACK, s.keptPlan(SMALL, FALLBACK));
            block(s, SMALL, s.option(SMALL) == 0 ? 10 : 100);
        }
        assertTrue(s.keptInlines(3000));
    }

    /** Calls of one size in OSU's {@code osu_bcast} loop past 8 KiB: 10 warm-ups, then 100 timed. */
    private static final int OSU_LOOP = 10 + 100;
    /** Calls of one size in the user-style probe up to its median block: 3 warm-ups, then 4 of 7 blocks of 20. */
    private static final int PROBE_TO_MEDIAN = 3 + 4 * 20;

    /**
     * Every class that tries, under either screening, with or without the header option and with any
     * incumbent: no call of a benchmark's loop of one size is timed, and each runs the incumbent, the
     * plan the class would run without learning.
     */
    @Test
    void noCallOfABenchmarksLoopOfOneSizeIsATrial() {
        assertTrue(TrialSchedule.FIRST_TRIAL_AFTER > Math.max(OSU_LOOP, PROBE_TO_MEDIAN));
        Plan[] options = {NATIVE, TREE, RING, FANOUT};
        for (TrialSchedule.Screening screening : TrialSchedule.Screening.values()) {
            for (boolean header : new boolean[] {false, true}) {
                for (int first = 0; first < options.length + (header ? 1 : 0); first++) {
                    Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
                    Arrays.fill(plans, options);
                    boolean[] inline = new boolean[TrialSchedule.CLASSES];
                    Arrays.fill(inline, header);
                    int[] incumbent = new int[TrialSchedule.CLASSES];
                    Arrays.fill(incumbent, first);
                    TrialSchedule s =
                            new TrialSchedule(plans, inline, incumbent, screening, TrialSchedule.UNTRIED_INLINE_BYTES);
                    for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                        String where = screening + ", header " + header + ", incumbent " + first + ", class " + c;
                        for (int call = 0; call < Math.max(OSU_LOOP, PROBE_TO_MEDIAN); call++) {
                            assertFalse(s.timed(c), where + ", call " + call);
                            assertEquals(first, s.option(c), where + ", call " + call);
                            assertEquals(TrialSchedule.GO_ON, s.record(c, 1), where + ", call " + call);
                        }
                    }
                }
            }
        }
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

    /**
     * Runs one block of class {@code c} whose calls each take {@code perCall}, and agrees on the
     * block's time as every rank's.
     *
     * @return the option the block ran
     */
    private static int block(TrialSchedule s, int c, long perCall) {
        int option = s.option(c);
        int calls = s.callsInBlock(c);
        for (int k = 0; k < calls; k++) {
            assertTrue(s.exploring(c));
            assertEquals(option, s.option(c), "an option runs a whole block");
            assertEquals(k == calls - 1 ? TrialSchedule.BLOCK_ENDED : TrialSchedule.GO_ON, s.record(c, perCall));
        }
        assertEquals(perCall * calls, s.blockNanos(c), "a block's time is its calls'");
        s.endBlock(c, s.blockNanos(c));
        return option;
    }

    /** Runs class {@code c}'s blocks to the verdict, option o's calls taking {@code perCall[o]}; returns the options in the order they ran. */
    private static List<Integer> untilVerdict(TrialSchedule s, int c, long... perCall) {
        List<Integer> ran = new ArrayList<>();
        while (s.exploring(c)) {
            int o = s.option(c);
            ran.add(block(s, c, perCall[o]));
        }
        return ran;
    }

    @Test
    void eachOptionRunsInTurnThenTheSlowOnesDropOutAndTheFastestIsKept() {
        TrialSchedule s = trying();
        assertEquals(4, s.options(LARGE));
        // Option 2 (the ring) is fastest; option 1 within 1.5 times its time runs again, 0 does not;
        // 3, the incumbent, always does.
        List<Integer> ran = untilVerdict(s, LARGE, 5000, 1400, 1000, 4000);
        assertEquals(List.of(0, 1, 2, 3, 1, 2, 3, 1, 2, 3), ran);
        long[] screening = new long[TrialSchedule.MAX_OPTIONS];
        long[] fastest = new long[TrialSchedule.MAX_OPTIONS];
        s.summarize(LARGE, screening, fastest);
        int calls = s.blockCalls(LARGE);
        assertEquals(5000L * TrialSchedule.SCREEN_CALLS, screening[0]);
        assertEquals(Long.MAX_VALUE, fastest[0], "screened out: no block");
        assertEquals(1000L * calls, fastest[2]);
        assertEquals(2, s.winner(LARGE));
        assertSame(RING, s.plan(LARGE, FALLBACK));
        assertEquals(1000L * calls, s.agreedNanos(LARGE));
        // 1.7 times the fastest screening is out, where twice was the limit before.
        assertEquals(List.of(0, 1, 2, 3, 2, 3, 2, 3), untilVerdict(trying(), LARGE, 5000, 1700, 1000, 4000));
    }

    @Test
    void theScreeningIsOneCallPerOptionAndTheBlocksAfterItAreWhole() {
        TrialSchedule s = trying();
        for (int o = 0; o < s.options(LARGE); o++) {
            assertEquals(o, s.option(LARGE));
            assertEquals(1, s.callsInBlock(LARGE));
            assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 0), "option " + o + " screened in one call");
            s.endBlock(LARGE, 1000);
        }
        assertEquals(s.blockCalls(LARGE), s.callsInBlock(LARGE));
        for (int k = 1; k < TrialSchedule.BLOCK; k++) {
            assertEquals(TrialSchedule.GO_ON, s.record(LARGE, 0));
        }
        assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 0));
    }

    @Test
    void onOneHostEveryOptionRunsTwoPassesOfWholeBlocksAndTheFirstCounts() {
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        Arrays.fill(plans, new Plan[0]);
        plans[LARGE] = new Plan[] {NATIVE, TREE, RING, FANOUT};
        int[] incumbent = new int[TrialSchedule.CLASSES];
        incumbent[LARGE] = 3;
        TrialSchedule s = new TrialSchedule(
                plans,
                new boolean[TrialSchedule.CLASSES],
                incumbent,
                TrialSchedule.Screening.NONE,
                TrialSchedule.UNTRIED_INLINE_BYTES);
        for (long i = 0; i < TrialSchedule.FIRST_TRIAL_AFTER; i++) {
            s.record(LARGE, 1);
        }
        leadIn(s, LARGE);
        assertEquals(TrialSchedule.BLOCK, s.screeningCalls(LARGE));
        // Option 1's first block is the fastest of all: it counts. Option 0's first block was
        // preempted (five times the fastest): it runs again and wins.
        List<Integer> ran = new ArrayList<>();
        long[][] perCall = {{5000, 800}, {900, 3000}, {1000, 1000}, {4000, 4000}};
        while (s.exploring(LARGE)) {
            int o = s.option(LARGE);
            int pass = (int) ran.stream().filter(x -> x == o).count();
            assertEquals(TrialSchedule.BLOCK, s.callsInBlock(LARGE));
            ran.add(block(s, LARGE, perCall[o][pass]));
        }
        assertEquals(List.of(0, 1, 2, 3, 0, 1, 2, 3), ran);
        assertEquals(0, s.winner(LARGE));
        assertEquals(800L * TrialSchedule.BLOCK, s.agreedNanos(LARGE));
    }

    @Test
    void blocksAreShortPastTwoMebibytesOnOneHostOnly() {
        TrialSchedule oneHost = schedule(TrialSchedule.Screening.NONE);
        TrialSchedule network = schedule(TrialSchedule.Screening.ONE_CALL);
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            boolean large = c > 0 && (1L << (c - 1)) >= TrialSchedule.SHORT_BLOCKS_ABOVE;
            assertEquals(large ? TrialSchedule.SHORT_BLOCK : TrialSchedule.BLOCK, oneHost.blockCalls(c), "class " + c);
            assertEquals(TrialSchedule.BLOCK, network.blockCalls(c), "class " + c);
        }
        assertEquals(TrialSchedule.BLOCK, oneHost.blockCalls(TrialSchedule.sizeClass(2 << 20)));
        assertEquals(TrialSchedule.SHORT_BLOCK, oneHost.blockCalls(TrialSchedule.sizeClass((2 << 20) + 1)));
        assertEquals(TrialSchedule.BLOCK, oneHost.blockCalls(LARGE));
    }

    private static TrialSchedule schedule(TrialSchedule.Screening screening) {
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        Arrays.fill(plans, new Plan[0]);
        return new TrialSchedule(
                plans,
                new boolean[TrialSchedule.CLASSES],
                new int[TrialSchedule.CLASSES],
                screening,
                TrialSchedule.UNTRIED_INLINE_BYTES);
    }

    @Test
    void aLargeClassTriesInShortBlocksOnOneHostAndWholeOnesAcrossANetwork() {
        int huge = TrialSchedule.sizeClass(8 << 20);
        for (TrialSchedule.Screening screening : TrialSchedule.Screening.values()) {
            Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
            Arrays.fill(plans, new Plan[0]);
            plans[huge] = new Plan[] {NATIVE, TREE, FANOUT};
            TrialSchedule s = new TrialSchedule(
                    plans,
                    new boolean[TrialSchedule.CLASSES],
                    new int[TrialSchedule.CLASSES],
                    screening,
                    TrialSchedule.UNTRIED_INLINE_BYTES);
            for (long i = 0; i < TrialSchedule.FIRST_TRIAL_AFTER; i++) {
                s.record(huge, 1);
            }
            leadIn(s, huge);
            boolean network = screening == TrialSchedule.Screening.ONE_CALL;
            int calls = network ? TrialSchedule.BLOCK : TrialSchedule.SHORT_BLOCK;
            assertEquals(calls, s.blockCalls(huge), screening.toString());
            // Across a network option 2 (50 a call) is screened out at five times the fastest; 0, the
            // incumbent, always runs. On one host every option runs two passes.
            assertEquals(
                    network ? List.of(0, 1, 2, 0, 1, 0, 1) : List.of(0, 1, 2, 0, 1, 2),
                    untilVerdict(s, huge, 50, 10, 50),
                    screening.toString());
            assertEquals(1, s.winner(huge), screening.toString());
            assertEquals(10L * calls, s.agreedNanos(huge), screening.toString());
        }
    }

    @Test
    void eachOptionCountsItsFastestBlock() {
        TrialSchedule s = trying();
        // Per option, the time of each call of its block in each pass.
        long[][] times = {{7, 1, 3}, {300, 100, 100}, {5, 500, 6}};
        for (int p = 0; p < TrialSchedule.Screening.ONE_CALL.passes; p++) {
            for (int o = 0; o < s.options(SMALL); o++) {
                if (p > 0 && o == 1) {
                    continue; // more than 1.5 times the fastest screening: it does not run again
                }
                assertEquals(o, block(s, SMALL, times[o][p]));
            }
        }
        assertFalse(s.exploring(SMALL));
        long[] screening = new long[TrialSchedule.MAX_OPTIONS];
        long[] out = new long[TrialSchedule.MAX_OPTIONS];
        s.summarize(SMALL, screening, out);
        assertEquals(1 * TrialSchedule.BLOCK, out[0]);
        assertEquals(300 * TrialSchedule.SCREEN_CALLS, screening[1]);
        assertEquals(Long.MAX_VALUE, out[1]);
        assertEquals(6 * TrialSchedule.BLOCK, out[2], "a slow block does not count, nor the screening");
        assertEquals(0, s.winner(SMALL));
    }

    @Test
    void anOptionJustInsideTheScreenRunsAgainAndOneJustOutsideDoesNot() {
        long fastest = 1000;
        long inside = (long) (TrialSchedule.SCREEN * fastest);
        TrialSchedule s = trying();
        // Option 3 is the incumbent: it runs in every pass whatever its first block took.
        assertEquals(
                List.of(0, 1, 2, 3, 1, 2, 3, 1, 2, 3), untilVerdict(s, LARGE, inside + 1, inside, fastest, inside + 1));
    }

    @Test
    void aTieKeepsTheIncumbentAndTheHeaderIsOptionZero() {
        TrialSchedule s = trying();
        untilVerdict(s, SMALL, 5, 5, 5);
        assertEquals(0, s.winner(SMALL));
        assertTrue(s.inlineOption(SMALL, 0));
        assertTrue(s.inlines(3000));
        assertSame(FALLBACK, s.plan(SMALL, FALLBACK));
    }

    @Test
    void aChallengerMustBeatTheIncumbentByTheMargin() {
        for (long challenger : new long[] {1000, 950, 920, 900, 800}) {
            TrialSchedule s = trying();
            untilVerdict(s, LARGE, 5000, challenger, 5000, 1000);
            boolean replaced = challenger * (1 + TrialSchedule.MARGIN) < 1000;
            assertEquals(replaced ? 1 : 3, s.winner(LARGE), "challenger " + challenger);
            assertFalse(s.exploring(LARGE));
        }
    }

    @Test
    void whileTryingTheHeaderCarriesOnlyOnItsTurn() {
        TrialSchedule s = trying();
        assertTrue(s.inlines(4096)); // option 0: the header
        assertSame(FALLBACK, s.plan(SMALL, FALLBACK));
        block(s, SMALL, 1);
        assertFalse(s.inlines(4096)); // option 1: native
        assertSame(NATIVE, s.plan(SMALL, FALLBACK));
        block(s, SMALL, 1);
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
            List<Integer> ran = untilVerdict(s, LARGE, 9, 9, round == 1 ? 1 : 9, 9);
            // Where option 2 is far ahead, only it and the incumbent (3) run after the first pass.
            assertEquals(
                    round == 1
                            ? s.options(LARGE) + 2 * (TrialSchedule.MAX_PASSES - 1)
                            : TrialSchedule.MAX_PASSES * s.options(LARGE),
                    ran.size(),
                    "blocks " + ran);
            int kept = round == 1 ? 2 : 3;
            for (long i = 0; i < interval - 1; i++) {
                assertEquals(TrialSchedule.GO_ON, s.record(LARGE, 1));
                assertEquals(kept, s.option(LARGE));
            }
            assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 1), "a re-check starts with every rank together");
            assertEquals(-1, s.winner(LARGE), "tries again after " + interval + " calls");
            leadIn(s, LARGE);
            interval *= 2;
        }
    }

    @Test
    void whatWasKeptIsKnownWhileARecheckRuns() {
        TrialSchedule s = trying();
        assertEquals(-1, s.settled(LARGE));
        untilVerdict(s, LARGE, 9, 1, 9, 9);
        for (long i = 0; i < TrialSchedule.FIRST_RECHECK; i++) {
            s.record(LARGE, 1);
        }
        assertTrue(s.exploring(LARGE), "re-checking");
        assertEquals(-1, s.winner(LARGE));
        assertEquals(1, s.settled(LARGE), "the last verdict is still what this run learnt");
    }

    @Test
    void onlyCallsOfAClassInItsTrialsAreTimed() {
        TrialSchedule s = schedule();
        for (int c : new int[] {0, 3, SMALL, LARGE}) {
            assertFalse(s.timed(c), "class " + c + " before its trials");
        }
        s = trying();
        assertTrue(s.timed(LARGE));
        assertTrue(s.timed(SMALL));
        assertFalse(s.timed(3), "a class that does not try");
        s.pause(true);
        assertFalse(s.timed(LARGE), "the warm-up's calls");
        s.pause(false);
        untilVerdict(s, LARGE, 9, 1, 9, 9);
        assertFalse(s.timed(LARGE), "a kept plan");
    }

    /** Create's trials: a class started now tries from its next call on, decides, and then waits for its re-check. */
    @Test
    void aClassStartedNowTriesAtItsNextCall() {
        TrialSchedule s = schedule();
        s.startNow(LARGE);
        assertFalse(s.exploring(LARGE), "the call that starts the trials runs the incumbent");
        assertEquals(3, s.option(LARGE));
        assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 1), "every rank agrees before the first trial");
        leadIn(s, LARGE);
        assertFalse(s.exploring(SMALL), "only the class started");
        untilVerdict(s, LARGE, 9, 1, 9, 9);
        assertEquals(1, s.winner(LARGE));
        s.startNow(3);
        assertFalse(s.exploring(3), "a class that does not try never starts");
        s.startNow(LARGE);
        assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 1), "a decided class may be started again");
        leadIn(s, LARGE);
        s.startNow(LARGE);
        assertTrue(s.exploring(LARGE), "starting a class that tries changes nothing");
        assertEquals(0, s.option(LARGE));
        for (long i = 0; i < TrialSchedule.FIRST_RECHECK; i++) {
            s.record(SMALL, 1);
        }
        assertTrue(s.exploring(SMALL), "other classes keep their own count");
    }

    /** Create's trials ask a challenger for more than the run's: the JIT may still compile then. */
    @Test
    void aClassStartedNowNeedsTheCreateMarginAndItsRecheckTheRunsOne() {
        // Option 1 is 20% faster than the incumbent (3): past the run's margin, inside create's.
        long fast = 100;
        long incumbent = 120;
        assertTrue(fast * (1 + TrialSchedule.MARGIN) < incumbent);
        assertFalse(fast * (1 + TrialSchedule.CREATE_MARGIN) < incumbent);
        TrialSchedule s = schedule();
        s.startNow(LARGE);
        assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 1));
        leadIn(s, LARGE);
        untilVerdict(s, LARGE, 1000, fast, 1000, incumbent);
        assertEquals(3, s.winner(LARGE), "create's trials keep the incumbent");
        for (long i = 0; i < TrialSchedule.FIRST_RECHECK; i++) {
            s.record(LARGE, 1);
        }
        leadIn(s, LARGE);
        untilVerdict(s, LARGE, 1000, fast, 1000, incumbent);
        assertEquals(1, s.winner(LARGE), "the re-check in the run takes the faster option");
    }

    /**
     * Create's trials past their budget: a class given up runs what it ran before, decides nothing,
     * keeps no time, and starts its trials afresh after as many calls as a class never tried.
     */
    @Test
    void aClassGivenUpRunsWhatItRanBeforeAndTriesAgainLater() {
        TrialSchedule s = schedule();
        s.startNow(LARGE);
        assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 1));
        leadIn(s, LARGE);
        block(s, LARGE, 5);
        s.record(LARGE, 7);
        s.abandon(LARGE);
        assertFalse(s.exploring(LARGE));
        assertEquals(3, s.option(LARGE), "the incumbent, not the option on trial");
        assertEquals(3, s.keptOption(LARGE));
        assertEquals(-1, s.settled(LARGE), "nothing decided");
        assertEquals(-1, s.agreedNanos(LARGE));
        assertEquals(0, s.blockNanos(LARGE), "the block under way is dropped");
        for (long i = 0; i < TrialSchedule.FIRST_TRIAL_AFTER - 1; i++) {
            assertEquals(TrialSchedule.GO_ON, s.record(LARGE, 1));
        }
        assertEquals(TrialSchedule.BLOCK_ENDED, s.record(LARGE, 1));
        leadIn(s, LARGE);
        // The run's margin again: 20% faster wins now.
        untilVerdict(s, LARGE, 1000, 100, 1000, 120);
        assertEquals(1, s.winner(LARGE));

        // A re-check given up keeps what the run kept before it; giving up a class not trying changes nothing.
        for (long i = 0; i < TrialSchedule.FIRST_RECHECK; i++) {
            s.record(LARGE, 1);
        }
        leadIn(s, LARGE);
        s.abandon(LARGE);
        assertEquals(1, s.option(LARGE));
        assertEquals(1, s.settled(LARGE));
        s.abandon(LARGE);
        s.abandon(3);
        assertEquals(1, s.option(LARGE));
        assertFalse(s.exploring(3));
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
        block(s, LARGE, 1);
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
        leadIn(s, LARGE);
        assertEquals(-1, s.agreedNanos(LARGE));
        untilVerdict(s, LARGE, 5000, 1000, 5000, 950); // the model's old choice, within the margin
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
        int verdicts = 0;
        for (int call = 0; call < 60_000; call++) {
            long bytes = random.nextInt(4) == 0 ? 3000 : random.nextInt(2) == 0 ? 700_000 : random.nextInt(1 << 12);
            int c = TrialSchedule.sizeClass(bytes);
            int option = s[0].option(c);
            boolean inline = s[0].inlines(bytes);
            boolean ended = false;
            for (int r = 0; r < ranks; r++) {
                assertEquals(option, s[r].option(c), "call " + call + " rank " + r);
                assertEquals(inline, s[r].inlines(bytes));
                // Option 1 is mostly slow, so that the screen has something to drop.
                long nanos = (option == 1 ? 3000 : 1) + random.nextInt(1000);
                boolean e = s[r].record(c, nanos) == TrialSchedule.BLOCK_ENDED;
                assertTrue(r == 0 || e == ended);
                ended = e;
            }
            if (ended) {
                long agreed = 0;
                for (int r = 0; r < ranks; r++) {
                    agreed = Math.max(agreed, s[r].blockNanos(c));
                }
                boolean decided = s[0].endBlock(c, agreed);
                for (int r = 1; r < ranks; r++) {
                    assertEquals(decided, s[r].endBlock(c, agreed));
                }
                verdicts += decided ? 1 : 0;
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
                IllegalArgumentException.class,
                () -> new TrialSchedule(
                        new Plan[3][],
                        new boolean[3],
                        new int[3],
                        TrialSchedule.Screening.ONE_CALL,
                        TrialSchedule.UNTRIED_INLINE_BYTES));
        Plan[][] plans = new Plan[TrialSchedule.CLASSES][];
        Arrays.fill(plans, new Plan[] {NATIVE, TREE, RING, FANOUT, NATIVE, TREE});
        boolean[] inline = new boolean[TrialSchedule.CLASSES];
        inline[0] = true;
        assertThrows(
                IllegalArgumentException.class,
                () -> new TrialSchedule(
                        plans,
                        inline,
                        new int[TrialSchedule.CLASSES],
                        TrialSchedule.Screening.ONE_CALL,
                        TrialSchedule.UNTRIED_INLINE_BYTES));
        Plan[][] four = new Plan[TrialSchedule.CLASSES][];
        Arrays.fill(four, new Plan[] {NATIVE, TREE});
        int[] beyond = new int[TrialSchedule.CLASSES];
        beyond[7] = 2;
        assertThrows(
                IllegalArgumentException.class,
                () -> new TrialSchedule(
                        four,
                        new boolean[TrialSchedule.CLASSES],
                        beyond,
                        TrialSchedule.Screening.ONE_CALL,
                        TrialSchedule.UNTRIED_INLINE_BYTES));
    }
}
