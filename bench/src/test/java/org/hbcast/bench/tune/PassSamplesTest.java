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
    void rivalsArePricedByTheirWorstRatioToTheBestOfEachPass() {
        // Points 0 and 1 are rivals, measured side by side. Point 1 is faster in passes 0 and 1, but
        // 2.9 times slower in pass 2; point 0 is never more than 1.34 times the best.
        PassSamples s = new PassSamples(3, 3);
        double[][] byPass = {{40e-6, 30e-6, 7e-6}, {200e-6, 160e-6, 8e-6}, {35e-6, 100e-6, 9e-6}};
        for (int pass = 0; pass < 3; pass++) {
            for (int point = 0; point < 3; point++) {
                s.add(point, pass, byPass[pass][point]);
            }
        }
        assertArrayEquals(new double[] {40e-6, 100e-6, 8e-6}, s.figures(), "per point, each its own median pass");
        double[] grouped = s.figures(List.of(new int[] {0, 1}));
        // The level is the median of the passes' best times (30, 160, 35 us): 35 us.
        assertEquals(35e-6 * 40 / 30, grouped[0], 1e-12);
        assertEquals(35e-6 * 100 / 35, grouped[1], 1e-12);
        assertTrue(grouped[0] < grouped[1], "the rival near the best in every pass is the cheaper");
        assertEquals(8e-6, grouped[2], "a point in no group keeps its own median");
        PassSamples steady = new PassSamples(2, 3);
        for (int pass = 0; pass < 3; pass++) {
            steady.add(0, pass, 10e-6 * (pass + 1));
            steady.add(1, pass, 12e-6 * (pass + 1));
        }
        assertArrayEquals(new double[] {20e-6, 24e-6}, steady.figures(List.of(new int[] {0, 1})), 1e-12,
                "a spell that slows every point alike changes nothing: the median pass");
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
