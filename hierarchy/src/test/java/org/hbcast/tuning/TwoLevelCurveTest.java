package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.junit.jupiter.api.Test;

class TwoLevelCurveTest {
    private static final long MESSAGE = 16 << 20;
    private static final ClusterShape FOUR_BY_TWO = ClusterShape.parse("4x2");

    /**
     * A two-level ring curve where 64 KiB chunks, past the network's eager limit, cost three times
     * what 32 KiB chunks do per chunk, though twice the bytes: 32 KiB chunks win.
     */
    private static NodeCurve ring(double scale) {
        return new NodeCurve(
                IntraNode.RING,
                2,
                List.of(
                        cost(32 << 10, scale * 40e-6, scale * 20e-6),
                        cost(64 << 10, scale * 150e-6, scale * 60e-6),
                        cost(128 << 10, scale * 200e-6, scale * 100e-6)));
    }

    private static NodeCurve.ChunkCost cost(int chunk, double fill, double stage) {
        return new NodeCurve.ChunkCost(chunk, fill, List.of(new TimedSize(MESSAGE, stage)));
    }

    private static Calibration withCurve(String layout, double scale) {
        return TuningFixtures.calibrationWithNodeCurves(2).withTwoLevel(layout, List.of(ring(scale)));
    }

    private static double hierarchical(
            Calibration c, long bytes, int chunk, int radix, ClusterShape shape, MemoryKind memory) {
        return new CostModel(c).predict(Algorithm.HIERARCHICAL, IntraNode.RING, bytes, chunk, radix, shape, memory);
    }

    @Test
    void onItsLayoutTheModelTakesTheMeasuredCurveElsewhereItComposesTheLevels() {
        Calibration measured = withCurve("2x2", 1);
        Calibration levels = TuningFixtures.calibrationWithNodeCurves(2);
        int chunk = 64 << 10;
        long chunks = MESSAGE / chunk;
        assertEquals(
                150e-6 + (chunks - 1) * 60e-6,
                hierarchical(measured, MESSAGE, chunk, 2, TuningFixtures.TWO_BY_TWO, MemoryKind.HOST),
                1e-12);
        assertEquals(
                150e-6,
                hierarchical(measured, chunk, chunk, 2, TuningFixtures.TWO_BY_TWO, MemoryKind.HOST),
                1e-15,
                "one chunk is the fill");
        for (ClusterShape other : List.of(ClusterShape.parse("3x2"), ClusterShape.parse("2x2 virtual"))) {
            assertEquals(
                    hierarchical(levels, MESSAGE, chunk, 2, other, MemoryKind.HOST),
                    hierarchical(measured, MESSAGE, chunk, 2, other, MemoryKind.HOST),
                    1e-15,
                    other.toString());
        }
        assertEquals(
                hierarchical(levels, MESSAGE, chunk, 2, TuningFixtures.TWO_BY_TWO, MemoryKind.DEVICE),
                hierarchical(measured, MESSAGE, chunk, 2, TuningFixtures.TWO_BY_TWO, MemoryKind.DEVICE),
                1e-15,
                "device buffers are staged through PCIe, which the host curve never measured");
        assertNotEquals(
                hierarchical(levels, MESSAGE, chunk, 2, TuningFixtures.TWO_BY_TWO, MemoryKind.HOST),
                hierarchical(measured, MESSAGE, chunk, 2, TuningFixtures.TWO_BY_TWO, MemoryKind.HOST));
        assertNull(measured.twoLevelCurve(IntraNode.FANOUT, TuningFixtures.TWO_BY_TWO), "only the ring was measured");
        assertEquals(
                new CostModel(levels)
                        .predict(
                                Algorithm.HIERARCHICAL,
                                IntraNode.FANOUT,
                                MESSAGE,
                                chunk,
                                2,
                                TuningFixtures.TWO_BY_TWO,
                                MemoryKind.HOST),
                new CostModel(measured)
                        .predict(
                                Algorithm.HIERARCHICAL,
                                IntraNode.FANOUT,
                                MESSAGE,
                                chunk,
                                2,
                                TuningFixtures.TWO_BY_TWO,
                                MemoryKind.HOST),
                1e-15,
                "the fan-out without a curve of its own is composed");
    }

    @Test
    void otherRadicesScaleTheMeasuredRadixTwoAsTheComposedFiguresScale() {
        Calibration measured = withCurve("4x2", 1);
        Calibration levels = TuningFixtures.calibrationWithNodeCurves(2);
        int chunk = 32 << 10;
        double two = hierarchical(measured, MESSAGE, chunk, 2, FOUR_BY_TWO, MemoryKind.HOST);
        assertEquals(40e-6 + (MESSAGE / chunk - 1) * 20e-6, two, 1e-12);
        double ratio = hierarchical(levels, MESSAGE, chunk, 3, FOUR_BY_TWO, MemoryKind.HOST)
                / hierarchical(levels, MESSAGE, chunk, 2, FOUR_BY_TWO, MemoryKind.HOST);
        assertNotEquals(1, ratio, 1e-6, "radix 3 makes another tree over 4 leaders");
        assertEquals(two * ratio, hierarchical(measured, MESSAGE, chunk, 3, FOUR_BY_TWO, MemoryKind.HOST), 1e-12);
    }

    @Test
    void theSearchFollowsTheCurveToTheChunkThatStaysUnderTheEagerLimit() {
        CostModel model = new CostModel(withCurve("2x2", 1));
        CostModel.Choice best = model.best(
                MESSAGE,
                TuningFixtures.TWO_BY_TWO,
                MemoryKind.HOST,
                4 << 20,
                Algorithm.HIERARCHICAL,
                IntraNode.RING,
                0,
                0);
        assertEquals(32 << 10, best.chunkBytes(), best.toString());
    }

    @Test
    void curvesSurviveJsonOlderFilesLoadAndBadOnesAreRefused() throws Exception {
        Calibration cal = withCurve("2x2", 1);
        byte[] json = TuningJson.mapper().writeValueAsBytes(cal);
        assertEquals(cal, TuningJson.mapper().readValue(json, Calibration.class));
        com.fasterxml.jackson.databind.node.ObjectNode tree =
                TuningJson.mapper().valueToTree(cal);
        tree.remove("twoLevelLayout");
        tree.remove("twoLevelCurves");
        Calibration older =
                TuningJson.mapper().readValue(TuningJson.mapper().writeValueAsString(tree), Calibration.class);
        assertTrue(older.twoLevelCurves().isEmpty());
        assertNull(older.twoLevelCurve(IntraNode.RING, TuningFixtures.TWO_BY_TWO));

        Calibration base = TuningFixtures.calibration();
        IllegalArgumentException twice =
                assertThrows(IllegalArgumentException.class, () -> base.withTwoLevel("2x2", List.of(ring(1), ring(2))));
        assertTrue(twice.getMessage().contains("a two-level curve is calibrated twice"), twice.getMessage());
        IllegalArgumentException noLayout = assertThrows(
                IllegalArgumentException.class,
                () -> new Calibration(
                        Calibration.FORMAT_VERSION,
                        base.hardware(),
                        "",
                        base.links(),
                        null,
                        List.of(),
                        List.of(),
                        null,
                        List.of(ring(1))));
        assertTrue(noLayout.getMessage().contains("two-level curves without the layout"), noLayout.getMessage());
        assertTrue(base.withTwoLevel("2x2", List.of()).isBuiltIn() == base.isBuiltIn());
        assertNull(base.withTwoLevel("2x2", List.of()).twoLevelLayout(), "no curves, no layout");
    }
}
