package org.hbcast.bench.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.junit.jupiter.api.Test;

/** The PCIe line through pinned copies' timings: recovered where the timings lie on one, refused where they cannot. */
class PcieRateTest {
    private static final long[] SIZES = {64 << 10, 1 << 20, 16 << 20};

    private static double[] times(double startup, double bandwidth) {
        double[] t = new double[SIZES.length];
        for (int i = 0; i < t.length; i++) {
            t[i] = startup + SIZES[i] / bandwidth;
        }
        return t;
    }

    @Test
    void theLineThroughTheTwoDirectionsMeanIsTheLink() {
        // Device to host 10 us + 25 GB/s, host to device 6 us + 20 GB/s: the mean of the two, not either.
        double[] d2h = times(10e-6, 25e9);
        double[] h2d = times(6e-6, 20e9);
        LinkCalibration link = PcieRate.fit(SIZES, d2h, h2d);
        assertEquals(LinkKind.PCIE, link.kind());
        double small = (d2h[0] + h2d[0]) / 2;
        double large = (d2h[2] + h2d[2]) / 2;
        assertEquals((SIZES[2] - SIZES[0]) / (large - small), link.bytesPerSecond(), 1);
        assertEquals(8e-6, link.startupSeconds(), 1e-9);
        assertEquals("measured", link.source());
    }

    @Test
    void aLargerCopyNoSlowerIsNoLinkAndANegativeStartUpIsZero() {
        double[] flat = {1e-3, 1e-3, 1e-3};
        assertNull(PcieRate.fit(SIZES, flat, flat));
        double[] faster = {2e-3, 1e-3, 1e-3};
        assertNull(PcieRate.fit(SIZES, faster, faster));
        // A line that would cross zero above 0 bytes: the start-up is kept at 0, the slope as measured.
        double[] steep = {1e-9, 1e-4, 2e-3};
        LinkCalibration link = PcieRate.fit(SIZES, steep, steep);
        assertEquals(0, link.startupSeconds());
        assertEquals((SIZES[2] - SIZES[0]) / (2e-3 - 1e-9), link.bytesPerSecond(), 1);
    }
}
