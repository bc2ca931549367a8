package org.hbcast.bench.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The device probe's arithmetic: its sizes, the copy bound, the pattern it checks, its block lengths. */
class DeviceProbeTest {
    @Test
    void sizesGrowByTheFactorFromOneByteTo256MiB() {
        List<Long> sizes = DeviceProbe.sizes(1, 256L << 20, 4);
        assertEquals(15, sizes.size());
        assertEquals(1L, sizes.get(0));
        assertEquals(1L << 20, sizes.get(10));
        assertEquals(256L << 20, sizes.get(14));
        assertEquals(List.of(3L, 6L, 12L), DeviceProbe.sizes(3, 13, 2));
        assertThrows(IllegalArgumentException.class, () -> DeviceProbe.sizes(1, 8, 1));
    }

    @Test
    void theBoundIsOneCopyPerReceiverSpreadOverTheGpus() {
        assertEquals(3.0, DeviceProbe.boundSeconds(1.0, 4, 1), 1e-12);
        assertEquals(7.0, DeviceProbe.boundSeconds(1.0, 8, 1), 1e-12);
        // Two GPUs: the receivers' copies split between them.
        assertEquals(1.5, DeviceProbe.boundSeconds(1.0, 4, 2), 1e-12);
        // More GPUs than receivers: one copy each, all at once.
        assertEquals(1.0, DeviceProbe.boundSeconds(1.0, 3, 8), 1e-12);
        assertEquals(0.0, DeviceProbe.boundSeconds(1.0, 1, 1), 1e-12);
    }

    @Test
    void eachSizeBroadcastsABytePatternOtherThanTheLastSizesAndNotZero() {
        List<Long> sizes = DeviceProbe.sizes(1, 256L << 20, 4);
        for (int i = 0; i < sizes.size(); i++) {
            int p = DeviceProbe.pattern(sizes.get(i));
            assertNotEquals(0, (byte) p, "size " + sizes.get(i));
            if (i > 0) {
                assertNotEquals(DeviceProbe.pattern(sizes.get(i - 1)), p, "size " + sizes.get(i));
            }
        }
    }

    @Test
    void blocksPastTheLargeSizeTakeFewerCalls() {
        DeviceProbe probe = new DeviceProbe();
        assertEquals(10, probe.callsAt(16L << 20));
        assertEquals(3, probe.callsAt((16L << 20) + 1));
    }
}
