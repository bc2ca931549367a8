package org.hbcast.bench.tune;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

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
