package org.hbcast.bench.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.hbcast.plan.IntraNode;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.NodeCurve;
import org.hbcast.tuning.TimedSize;
import org.hbcast.tuning.TuningJson;
import org.hbcast.tuning.TuningTable;
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
        MpiOutcome out = MpiLaunch.program(Calibrate.class)
                .testBedOf(2, 1, 1)
                .args(
                        "--out",
                        file.toString(),
                        "-i",
                        "5",
                        "--link-sizes",
                        "64:8K",
                        "--native-sizes",
                        "1:4K",
                        "--node-chunks",
                        "1K:4K",
                        "--curve-run-ms",
                        "2")
                .run();
        assertEquals(0, out.exitCode(), out.output());
        Calibration c = TuningJson.mapper().readValue(file.toFile(), Calibration.class);
        LinkCalibration net = c.link(LinkKind.NETWORK);
        assertEquals("measured over the leaders' tree", net.source(), out.output());
        assertEquals(
                List.of(64L, 128L, 256L, 512L, 1024L, 2048L, 4096L, 8192L, 1L << 20),
                net.transfers().stream().map(TimedSize::bytes).toList());
        assertNonDecreasing(net.transfers());
        assertNonDecreasing(net.gaps());
        assertNonDecreasing(c.link(LinkKind.MPI_SHARED_MEMORY).transfers());
        assertNotNull(c.nodeCurve(IntraNode.FANOUT, 2), "node 0's curve, measured while the other hosts sleep");
        assertEquals("2+1+1", c.twoLevelLayout(), "the whole two-level broadcast, every host taking part");
        for (IntraNode transport : List.of(IntraNode.RING, IntraNode.FANOUT)) {
            NodeCurve twoLevel = c.twoLevelCurve(transport, ClusterShape.parse("2+1+1"));
            assertEquals(
                    List.of(1024, 2048, 4096),
                    twoLevel.chunks().stream()
                            .map(NodeCurve.ChunkCost::chunkBytes)
                            .toList(),
                    transport.toString());
            assertEquals(2, twoLevel.nodeSize());
        }
        assertTrue(out.output().contains("ring   on 2+1+1, chunk     4096 B  fill"), out.output());
        assertEquals(13, c.nativeTimes().size());
        assertTrue(out.output().contains("# written to " + file), out.output());
    }

    @Test
    void aLaunchMergesEarlierLaunchesIntoTheirMedianAndRefusesFilesItCannotMerge(@TempDir Path dir) throws IOException {
        String[] quick = {
            "-i", "3", "--passes", "1", "--link-sizes", "none", "--native-sizes", "1K:2K", "--node-chunks", "4K:8K"
        };
        Path first = dir.resolve("launch-1.json");
        MpiOutcome one = MpiLaunch.program(Calibrate.class)
                .ranks(2)
                .args(withArgs(quick, "--out", first.toString()))
                .run();
        assertEquals(0, one.exitCode(), one.output());

        Path merged = dir.resolve("calibration.json");
        MpiOutcome two = MpiLaunch.program(Calibrate.class)
                .ranks(2)
                .args(withArgs(quick, "--merge", first.toString(), "--out", merged.toString()))
                .run();
        assertEquals(0, two.exitCode(), two.output());
        assertTrue(two.output().contains(", merged from 2 launches by slowest"), two.output());
        Calibration a = TuningJson.mapper().readValue(first.toFile(), Calibration.class);
        Calibration m = TuningJson.mapper().readValue(merged.toFile(), Calibration.class);
        assertEquals(
                a.nativeTimes().stream().map(TimedSize::bytes).toList(),
                m.nativeTimes().stream().map(TimedSize::bytes).toList());
        assertEquals(
                a.nodeCurve(IntraNode.RING, 2).chunks().size(),
                m.nodeCurve(IntraNode.RING, 2).chunks().size());

        Path foreign = dir.resolve("foreign.json");
        TuningJson.mapper()
                .writeValue(
                        foreign.toFile(),
                        Calibration.measured(
                                "cpu=Other; cpus=1",
                                "x",
                                a.links(),
                                a.nativeLayout(),
                                a.nativeTimes(),
                                a.nodeCurves()));
        MpiOutcome refused = MpiLaunch.program(Calibrate.class)
                .ranks(2)
                .args(withArgs(
                        quick,
                        "--merge",
                        foreign.toString(),
                        "--out",
                        dir.resolve("x.json").toString()))
                .run();
        assertTrue(refused.exitCode() != 0, refused.output());
        assertTrue(
                refused.output()
                        .contains("--merge " + foreign + " is a calibration of 'cpu=Other; cpus=1', not of"
                                + " this hardware"),
                refused.output());

        Path broken = dir.resolve("broken.json");
        Files.writeString(broken, "{\"formatVersion\": 1, \"hardware\":");
        MpiOutcome unreadable = MpiLaunch.program(Calibrate.class)
                .ranks(2)
                .args(withArgs(
                        quick,
                        "--merge",
                        broken.toString(),
                        "--out",
                        dir.resolve("y.json").toString()))
                .run();
        assertTrue(unreadable.exitCode() != 0, unreadable.output());
        assertTrue(
                unreadable.output().contains("--merge " + broken + " is not a readable calibration"),
                unreadable.output());
        assertFalse(Files.exists(dir.resolve("x.json")) || Files.exists(dir.resolve("y.json")));
    }

    private static String[] withArgs(String[] base, String... more) {
        String[] all = Arrays.copyOf(base, base.length + more.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void theTunersCheckReachesItsVerdict(@TempDir Path dir) {
        Path table = dir.resolve("tuning.json");
        MpiOutcome out = MpiLaunch.program(Tuner.class)
                .ranks(3)
                .args(
                        "--out",
                        table.toString(),
                        "--sizes",
                        "64K:128K",
                        "--chunks",
                        "32K:64K",
                        "--algorithms",
                        "native,hierarchical",
                        "-i",
                        "3",
                        "-x",
                        "1",
                        "--repeat",
                        "1",
                        "--check-runs",
                        "3",
                        "--min-run-ms",
                        "1",
                        "--validate")
                .env("HBCAST_CALIBRATION_FILE", dir.resolve("none.json").toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        assertTrue(out.output().contains("median of 3 interleaved runs in 3 passes through the sizes"), out.output());
        assertTrue(out.output().contains("# selector check: pass 3 of 3, 1 interleaved runs per size"), out.output());
        assertTrue(
                out.output().matches("(?s).*# 2 sizes: table choice missed its target at \\d, model choice at \\d.*"),
                out.output());
        assertFalse(out.output().contains("Exception"), out.output());
    }

    @Test
    void theTunerCalibratesBeforeAndAfterItsSweepWhereTheModelReadsIt(@TempDir Path dir) throws IOException {
        Path cal = dir.resolve("calibration.json");
        Path table = dir.resolve("tuning.json");
        MpiOutcome out = MpiLaunch.program(Tuner.class)
                .ranks(3)
                .args(
                        "--calibrate=-i 3 --passes 1 --link-sizes none  --native-sizes 64K:128K --node-chunks 32K:64K",
                        "--out",
                        table.toString(),
                        "--sizes",
                        "64K:128K",
                        "--chunks",
                        "32K:64K",
                        "--algorithms",
                        "native,hierarchical",
                        "-i",
                        "3",
                        "-x",
                        "1",
                        "--repeat",
                        "1",
                        "--check-runs",
                        "3",
                        "--min-run-ms",
                        "1",
                        "--validate")
                .env("HBCAST_CALIBRATION_FILE", cal.toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        String text = out.output();
        int before = text.indexOf("# written to " + cal);
        int after = text.indexOf("# written to " + cal, before + 1);
        assertTrue(before >= 0 && before < text.indexOf("# tuning "), "before the sweep: " + text);
        assertTrue(
                text.indexOf("# tuning ") < after && after < text.indexOf("# selector check"),
                "again after the sweep, before the check: " + text);
        assertTrue(text.contains(", merged from 2 launches by slowest"), text);
        Calibration c = TuningJson.mapper().readValue(cal.toFile(), Calibration.class);
        assertFalse(c.isBuiltIn());
        assertEquals(2, c.nodeCurve(IntraNode.RING, 3).chunks().size());
        assertEquals(
                List.of(65536L, 131072L),
                c.nativeTimes().stream().map(TimedSize::bytes).toList());
        TuningTable t = TuningJson.mapper().readValue(table.toFile(), TuningTable.class);
        assertEquals(c, t.calibration(), "the sweep and the check price the model with this launch's calibration");
        assertTrue(out.output().contains("# 2 sizes: table choice missed its target at"), out.output());
    }

    @Test
    void theTunerRefusesCalibrationOptionsItCannotUseBeforeMeasuring(@TempDir Path dir) {
        Path table = dir.resolve("tuning.json");
        MpiOutcome out = MpiLaunch.program(Tuner.class)
                .ranks(2)
                .args("--calibrate=--passes 1 --no-such-option", "--out", table.toString(), "--sizes", "64K:64K")
                .env("HBCAST_CALIBRATION_FILE", dir.resolve("calibration.json").toString())
                .run();
        assertTrue(out.exitCode() != 0, out.output());
        assertTrue(
                out.output().contains("--calibrate '--passes 1 --no-such-option': Unknown option: '--no-such-option'"),
                out.output());
        assertFalse(Files.exists(table) || Files.exists(dir.resolve("calibration.json")));
    }

    @Test
    void theTunerRefusesAlgorithmsWithNoCandidateOnTheLayoutBeforeMeasuring(@TempDir Path dir) {
        Path table = dir.resolve("tuning.json");
        MpiOutcome out = MpiLaunch.program(Tuner.class)
                .ranks(2)
                .args("--algorithms", "knomial", "--out", table.toString(), "--sizes", "64K:64K")
                .env("HBCAST_CALIBRATION_FILE", dir.resolve("calibration.json").toString())
                .run();
        assertTrue(out.exitCode() != 0, out.output());
        assertTrue(
                out.output().contains("--algorithms knomial --intra ring,fanout: no candidate on 1x2"), out.output());
        assertFalse(Files.exists(table), "nothing swept, nothing written");
    }

    @Test
    void aCalibrationRefusesANegativeRunTimeBeforeMeasuring(@TempDir Path dir) {
        Path file = dir.resolve("calibration.json");
        MpiOutcome out = MpiLaunch.program(Calibrate.class)
                .ranks(2)
                .args("--curve-run-ms", "-1", "--out", file.toString())
                .run();
        assertTrue(out.exitCode() != 0, out.output());
        assertTrue(out.output().contains("--curve-run-ms >= 0"), out.output());
        assertFalse(out.output().contains("ring   on"), "nothing measured: " + out.output());
        assertFalse(Files.exists(file));
    }

    private static void assertNonDecreasing(List<TimedSize> curve) {
        assertFalse(curve.isEmpty());
        for (int i = 1; i < curve.size(); i++) {
            assertTrue(curve.get(i - 1).seconds() <= curve.get(i).seconds(), "dearer than a larger message: " + curve);
        }
    }
}
