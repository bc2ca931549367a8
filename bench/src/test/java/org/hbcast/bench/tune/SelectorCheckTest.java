package org.hbcast.bench.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class SelectorCheckTest {
    @Test
    void passesShareTheRunsWithinOneOfEachOtherTheFirstTakingTheRemainder() {
        for (int runs = 1; runs <= 40; runs++) {
            for (int passes = 1; passes <= runs; passes++) {
                int r = runs;
                int p = passes;
                int[] split = IntStream.range(0, passes)
                        .map(i -> SelectorCheck.runsInPass(r, p, i))
                        .toArray();
                assertEquals(runs, IntStream.of(split).sum(), runs + " runs in " + passes + " passes");
                assertEquals(split[0], IntStream.of(split).max().orElseThrow());
                assertTrue(split[0] - split[passes - 1] <= 1, runs + " in " + passes);
            }
        }
        assertEquals(4, SelectorCheck.runsInPass(11, 3, 0));
        assertEquals(3, SelectorCheck.runsInPass(11, 3, 2));
    }

    @Test
    void eachPassIsJudgedByItsOwnPairsAndTheVerdictByAllOfThem() {
        // Pass 2 met a spell in which the choice ran 1.6 times the best; passes 1 and 3 did not.
        double[] best = {100, 100, 100, 300, 300, 300, 100, 100, 100};
        double[] choice = {105, 110, 100, 480, 480, 480, 110, 105, 100};
        assertEquals("1.05 1.60 1.05", SelectorCheck.byPass(choice, best, 3));
        assertEquals(1.1, SelectorCheck.pairedRatio(choice, best), 1e-12);
        assertEquals("1.10", SelectorCheck.byPass(choice, best, 1));
    }
}
