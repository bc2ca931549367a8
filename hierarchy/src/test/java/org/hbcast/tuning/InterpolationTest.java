package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class InterpolationTest {
    private final long[] sizes = {1 << 16, 1 << 20, 1 << 24};

    @Test
    void exactAtMeasuredSizes() {
        for (int i = 0; i < sizes.length; i++) {
            Interpolation.Position p = Interpolation.locate(sizes, sizes[i]);
            assertTrue(p.exact());
            assertEquals(i, p.nearest());
        }
    }

    @Test
    void betweenSizesOnALogScale() {
        Interpolation.Position p = Interpolation.locate(sizes, 1 << 18);
        assertEquals(0, p.lower());
        assertEquals(1, p.upper());
        assertEquals(0.5, p.fraction(), 1e-12);
        assertEquals(0, p.nearest());
        assertEquals(0.75, Interpolation.locate(sizes, 1 << 19).fraction(), 1e-12);
        assertEquals(1, Interpolation.locate(sizes, 1 << 19).nearest());
        assertEquals(1 << 17, Interpolation.geometric(1 << 16, 1 << 18, 0.5), 1e-6);
    }

    @Test
    void clampedOutside() {
        Interpolation.Position below = Interpolation.locate(sizes, 1);
        assertEquals(0, below.lower());
        assertTrue(below.exact());
        Interpolation.Position above = Interpolation.locate(sizes, 1L << 40);
        assertEquals(2, above.lower());
        assertTrue(above.exact());
        assertThrows(IllegalArgumentException.class, () -> Interpolation.locate(new long[0], 5));
    }

    @Test
    void timesInterpolateLogLogAndScaleWithSizeAboveTheRange() {
        List<TimedSize> t = List.of(new TimedSize(1 << 16, 1e-4), new TimedSize(1 << 20, 1e-3));
        assertEquals(1e-4, Interpolation.logLog(t, 1 << 16), 1e-15);
        assertEquals(1e-4, Interpolation.logLog(t, 1), 1e-15);
        assertEquals(Math.sqrt(1e-4 * 1e-3), Interpolation.logLog(t, 1 << 18), 1e-12);
        assertEquals(4e-3, Interpolation.logLog(t, 1 << 22), 1e-15);
    }
}
