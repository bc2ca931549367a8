package org.hbcast.bench.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.hbcast.IntraNode;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.TimedSize;
import org.hbcast.tuning.TuningJson;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The calibration and the tuner on real ranks, with small ranges: what they write is a calibration
 * the model can use (the network measured over hbcast's tree among the leaders of real hosts, curves
 * that never make a message dearer than a larger one) and a selector check that runs to its verdict.
 */
class CalibrateMpiTest {
    @Test
    void theNetworkIsMeasuredOverTheLeadersTreeOfThreeHosts(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("calibration.json");
        MpiOutcome out = MpiLaunch.program(Calibrate.class).testBedOf(2, 1, 1)
                .args("--out", file.toString(), "-i", "5", "--link-sizes", "64:8K", "--native-sizes", "1:4K",
                        "--node-chunks", "1K:4K")
                .run();
        assertEquals(0, out.exitCode(), out.output());
        Calibration c = TuningJson.mapper().readValue(file.toFile(), Calibration.class);
        LinkCalibration net = c.link(LinkKind.NETWORK);
        assertEquals("measured over the leaders' tree", net.source(), out.output());
        assertEquals(List.of(64L, 128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L, 1L << 20),
                net.transfers().stream().map(TimedSize::bytes).toList());
        assertNonDecreasing(net.transfers());
        assertNonDecreasing(net.gaps());
        assertNonDecreasing(c.link(LinkKind.MPI_SHARED_MEMORY).transfers());
        assertNotNull(c.nodeCurve(IntraNode.FANOUT, 2), "node 0's curve, measured while the other hosts sleep");
        assertEquals(13, c.nativeTimes().size());
        assertTrue(out.output().contains("# written to " + file), out.output());
    }

    @Test
    void theTunersCheckReachesItsVerdict(@TempDir Path dir) {
        Path table = dir.resolve("tuning.json");
        MpiOutcome out = MpiLaunch.program(Tuner.class).ranks(3)
                .args("--out", table.toString(), "--sizes", "64K:128K", "--chunks", "32K:64K", "--algorithms",
                        "native,hierarchical", "-i", "3", "-x", "1", "--repeat", "1", "--check-runs", "3",
                        "--min-run-ms", "1", "--validate")
                .env("HBCAST_CALIBRATION_FILE", dir.resolve("none.json").toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        assertTrue(out.output().contains("median of 3 interleaved runs"), out.output());
        assertTrue(out.output().matches("(?s).*# 2 sizes: table choice missed its target at \\d, model choice at \\d.*"),
                out.output());
        assertFalse(out.output().contains("Exception"), out.output());
    }

    private static void assertNonDecreasing(List<TimedSize> curve) {
        assertFalse(curve.isEmpty());
        for (int i = 1; i < curve.size(); i++) {
            assertTrue(curve.get(i - 1).seconds() <= curve.get(i).seconds(), "dearer than a larger message: " + curve);
        }
    }
}
