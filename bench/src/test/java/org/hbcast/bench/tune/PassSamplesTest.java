package org.hbcast.bench.tune;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The calibration's statistics: the median pass per point, paired ratios, the sizes a link curve measures. */
class PassSamplesTest {
    @Test
    void aPointIsItsMedianPassSoOneSlowSpellDoesNotSetIt() {
        PassSamples s = new PassSamples(2, 3);
        s.add(0, 0, 10e-6);
        s.add(0, 1, 90e-6);
        s.add(0, 2, 11e-6);
        s.add(1, 0, 5e-6);
        s.add(1, 1, 4e-6);
        s.add(1, 2, 6e-6);
        assertEquals(11e-6, s.figure(0));
        assertArrayEquals(new double[] {11e-6, 5e-6}, s.figures());
    }

    @Test
    void rivalsArePricedByTheirMeanRatioToTheBestOfEachPassWithoutTheirWorstPass() {
        // Points 0 and 1 are rivals, measured side by side; point 2 is in no group. Passes 0-1 are a
        // fast spell (point 1 1.7 times the best), 2-3 a slow one (point 0 1.1 times), and in pass 4
        // a slow spell began while point 0 ran, after point 1's run: point 0 looks 3 times dearer.
        PassSamples s = new PassSamples(3, 5);
        double[][] byPass = {
            {10e-6, 17e-6, 5e-6}, {10e-6, 17e-6, 5e-6}, {33e-6, 30e-6, 6e-6}, {33e-6, 30e-6, 6e-6}, {90e-6, 30e-6, 7e-6}
        };
        for (int pass = 0; pass < 5; pass++) {
            for (int point = 0; point < 3; point++) {
                s.add(point, pass, byPass[pass][point]);
            }
        }
        double[] grouped = s.figures(List.of(new int[] {0, 1}));
        // The level is the median of the passes' best times (10, 10, 30, 30, 30 us): 30 us.
        assertEquals(30e-6 * (1 + 1 + 1.1 + 1.1) / 4, grouped[0], 1e-12, "pass 4 (ratio 3) left out");
        assertEquals(30e-6 * (1.7 + 1 + 1 + 1) / 4, grouped[1], 1e-12, "one of its fast passes (1.7) left out");
        assertTrue(grouped[0] < grouped[1], "the rival near the best in both spells is the cheaper");
        assertEquals(6e-6, grouped[2], "a point in no group keeps its own median");
        PassSamples steady = new PassSamples(2, 3);
        for (int pass = 0; pass < 3; pass++) {
            steady.add(0, pass, 10e-6 * (pass + 1));
            steady.add(1, pass, 12e-6 * (pass + 1));
        }
        assertArrayEquals(
                new double[] {20e-6, 24e-6},
                steady.figures(List.of(new int[] {0, 1})),
                1e-12,
                "a spell that slows every point alike changes nothing: the median pass");
        PassSamples few = new PassSamples(2, PassSamples.TRIMMED_FROM - 1);
        for (int pass = 0; pass < PassSamples.TRIMMED_FROM - 1; pass++) {
            few.add(0, pass, 10e-6);
            few.add(1, pass, pass == 0 ? 20e-6 : 10e-6);
        }
        assertEquals(
                10e-6 * (2 + 1 + 1) / 3,
                few.figures(List.of(new int[] {0, 1}))[1],
                1e-12,
                "with fewer passes every pass counts");
    }

    @Test
    void needsAtLeastOnePass() {
        assertThrows(IllegalArgumentException.class, () -> new PassSamples(1, 0));
        assertThrows(IllegalArgumentException.class, () -> new PassSamples(-1, 3));
    }

    @Test
    void pairedRatiosCancelASlowSpellThatHitsBothRunsOfAPair() {
        // Run 2 is slow for both variants: ratios of medians would mix it in, the paired ratio does not.
        double[] best = {10, 10, 40, 10, 10};
        double[] other = {11, 11, 44, 11, 30};
        assertEquals(1.1, SelectorCheck.pairedRatio(other, best), 1e-12);
        assertEquals(1.0, SelectorCheck.pairedRatio(best, best));
    }

    @Test
    void linkCurvesAlsoMeasureTheStraightLinesEnds() {
        assertEquals(List.of(64L, 128L, 1024L), Calibrate.withEnds(List.of(128L, 1024L), 64, 1024));
        assertEquals(List.of(64L, 1048576L), Calibrate.withEnds(List.of(), 64, 1 << 20));
    }
}
