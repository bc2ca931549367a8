package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.junit.jupiter.api.Test;

class NodeCurveTest {
    private static final long HOT = 1 << 20;
    private static final long COLD = 64 << 20;
    /** Each chunk costs 4x more once messages stream from memory (64 MiB) than in cache (1 MiB). */
    private static final NodeCurve FANOUT = new NodeCurve(
            IntraNode.FANOUT,
            4,
            List.of(cost(1 << 10, 2e-6, 1e-6), cost(1 << 16, 20e-6, 8e-6), cost(1 << 20, 400e-6, 200e-6)));

    private static NodeCurve.ChunkCost cost(int chunk, double fill, double hotStage) {
        return new NodeCurve.ChunkCost(
                chunk, fill, List.of(new TimedSize(HOT, hotStage), new TimedSize(COLD, 4 * hotStage)));
    }

    @Test
    void measuredChunksAreExactBetweenLogLogOutsideClampedOrScaled() {
        assertEquals(20e-6, FANOUT.fill(1 << 16), 1e-18);
        assertEquals(8e-6, FANOUT.stage(1 << 16, HOT), 1e-18);
        assertEquals(32e-6, FANOUT.stage(1 << 16, COLD), 1e-18);
        // Half way between 1 KiB and 64 KiB on a log scale: the geometric mean of the times.
        assertEquals(Math.sqrt(1e-6 * 8e-6), FANOUT.stage(1 << 13, HOT), 1e-15);
        assertEquals(1e-6, FANOUT.stage(1, HOT), 1e-18, "below the smallest chunk the per-chunk overhead stays");
        assertEquals(800e-6, FANOUT.fill(2 << 20), 1e-15, "above the largest chunk time scales with bytes");
        assertEquals(1600e-6, FANOUT.stage(2 << 20, COLD), 1e-15);
    }

    @Test
    void theCacheTermFollowsTheMessageSize() {
        assertEquals(8e-6, FANOUT.stage(1 << 16, 4096), 1e-18, "below the measured messages: the cached cost");
        assertEquals(32e-6, FANOUT.stage(1 << 16, 1L << 40), 1e-18, "above: the streaming cost, not scaled by size");
        // 8 MiB lies half way between 1 MiB and 64 MiB on a log scale: twice the cached cost.
        assertEquals(16e-6, FANOUT.stage(1 << 16, 8 << 20), 1e-15);
    }

    @Test
    void badCurvesAreRefusedWithTheReason() {
        List<NodeCurve.ChunkCost> one = List.of(cost(64, 1e-6, 1e-6));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new NodeCurve(IntraNode.AUTO, 4, one))
                .getMessage()
                .contains("ring or the fan-out"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new NodeCurve(IntraNode.RING, 1, one))
                .getMessage()
                .contains("at least 2 ranks"));
        assertThrows(IllegalArgumentException.class, () -> new NodeCurve(IntraNode.RING, 4, List.of()));
        assertThrows(
                IllegalArgumentException.class,
                () -> new NodeCurve(IntraNode.RING, 4, List.of(cost(128, 1e-6, 1e-6), cost(64, 1e-6, 1e-6))));
        for (double bad : new double[] {0, -1e-6, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new NodeCurve(IntraNode.RING, 4, List.of(cost(64, 1e-6, bad))));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> new NodeCurve(IntraNode.RING, 4, List.of(cost(64, bad, 1e-6))));
        }
        assertThrows(
                IllegalArgumentException.class,
                () -> new NodeCurve(IntraNode.RING, 4, List.of(new NodeCurve.ChunkCost(64, 1e-6, List.of()))));
        assertThrows(
                IllegalArgumentException.class,
                () -> new NodeCurve(
                        IntraNode.RING,
                        4,
                        List.of(new NodeCurve.ChunkCost(
                                64, 1e-6, List.of(new TimedSize(COLD, 1e-6), new TimedSize(HOT, 1e-6))))));
        Calibration base = TuningFixtures.calibration();
        assertTrue(assertThrows(
                        IllegalArgumentException.class,
                        () -> Calibration.measured(
                                base.hardware(), "", base.links(), null, List.of(), List.of(FANOUT, FANOUT)))
                .getMessage()
                .contains("twice"));
    }

    @Test
    void theModelUsesTheCurveOfTheNodeSizeItWasMeasuredOn() {
        Calibration cal = Calibration.measured(
                TuningFixtures.calibration().hardware(),
                "",
                TuningFixtures.calibration().links(),
                null,
                List.of(),
                List.of(FANOUT));
        CostModel model = new CostModel(cal);
        long m = 16 << 20;
        int c = 1 << 20;
        assertEquals(
                200e-6 * Math.pow(4, 2.0 / 3), FANOUT.stage(c, m), 1e-15, "16 MiB: two thirds of the way to 64 MiB");
        assertEquals(
                400e-6 + 15 * FANOUT.stage(c, m),
                model.predict(
                        Algorithm.HIERARCHICAL, IntraNode.FANOUT, m, c, 2, ClusterShape.parse("1x4"), MemoryKind.HOST),
                1e-15);
        assertEquals(cal.nodeCurve(IntraNode.FANOUT, 4), FANOUT);
        assertNull(cal.nodeCurve(IntraNode.FANOUT, 8));
        assertNull(cal.nodeCurve(IntraNode.RING, 4));
        // No curve for 8 ranks or for the ring: the link formulas (fan-out one step to fill, ring n - 1).
        double step = cal.link(LinkKind.SHARED_MEMORY).seconds(c);
        assertEquals(
                16 * step,
                model.predict(
                        Algorithm.HIERARCHICAL, IntraNode.FANOUT, m, c, 2, ClusterShape.parse("1x8"), MemoryKind.HOST),
                1e-12);
        assertEquals(
                (16 + 4 - 2) * step,
                model.predict(
                        Algorithm.HIERARCHICAL, IntraNode.RING, m, c, 2, ClusterShape.parse("1x4"), MemoryKind.HOST),
                1e-12);
        // Between nodes the slower of the tree's stage and the node's stage paces the pipeline.
        double net = cal.link(LinkKind.NETWORK).seconds(c);
        assertEquals(
                net + 400e-6 + 15 * Math.max(net, FANOUT.stage(c, m)),
                model.predict(
                        Algorithm.HIERARCHICAL, IntraNode.FANOUT, m, c, 2, ClusterShape.parse("2x4"), MemoryKind.HOST),
                1e-12);
    }

    @Test
    void curvesSurviveJsonAndOlderFilesWithoutThemStillLoad() throws Exception {
        Calibration cal = TuningFixtures.calibrationWithNodeCurves(4);
        byte[] json = TuningJson.mapper().writeValueAsBytes(cal);
        assertEquals(cal, TuningJson.mapper().readValue(json, Calibration.class));
        com.fasterxml.jackson.databind.node.ObjectNode tree =
                TuningJson.mapper().valueToTree(TuningFixtures.calibration());
        tree.remove("nodeCurves");
        String older = TuningJson.mapper().writeValueAsString(tree);
        assertTrue(!older.contains("nodeCurves"), older);
        assertTrue(TuningJson.mapper()
                .readValue(older, Calibration.class)
                .nodeCurves()
                .isEmpty());
    }

    @Test
    void smoothingLowersOnlyWhatNoiseInflatedAndLeavesConsistentCurvesAlone() {
        assertEquals(FANOUT, FANOUT.smoothed());
        // 64 KiB measured 24x its 16 KiB neighbour: one chunk of 64 KiB costs at most 4 x 2 (cache) times as much.
        NodeCurve noisy = new NodeCurve(
                IntraNode.FANOUT,
                4,
                List.of(cost(16 << 10, 5e-6, 2e-6), cost(64 << 10, 120e-6, 8e-6), cost(256 << 10, 80e-6, 30e-6)));
        NodeCurve clean = noisy.smoothed();
        assertEquals(40e-6, clean.fill(64 << 10), 1e-15);
        assertEquals(5e-6, clean.fill(16 << 10), 1e-18, "figures that break no bound stay as measured");
        assertEquals(30e-6, clean.stage(256 << 10, HOT), 1e-18);
        // A smaller chunk costs no more than a larger one.
        NodeCurve inverted =
                new NodeCurve(IntraNode.RING, 4, List.of(cost(1 << 10, 9e-6, 9e-6), cost(4 << 10, 6e-6, 3e-6)));
        assertEquals(6e-6, inverted.smoothed().fill(1 << 10), 1e-18);
        assertEquals(3e-6, inverted.smoothed().stage(1 << 10, HOT), 1e-18);
        assertEquals(12e-6, inverted.smoothed().stage(1 << 10, COLD), 1e-18);
    }

    @Test
    void aSmallChunkMeasuredOnlyInCacheDoesNotCapALargerOneStreamingFromMemory() {
        // Measured on this machine: 4 KiB chunks only up to 64 KiB messages (0.25 us a chunk, in cache);
        // 8 KiB chunks at 64 MiB took 4.8 us. Capping those at 4 x 0.25 made 8 KiB chunks look 5x cheaper
        // than they ran, and the model chose them for 8-64 MiB.
        NodeCurve measured = new NodeCurve(
                IntraNode.FANOUT,
                4,
                List.of(
                        new NodeCurve.ChunkCost(
                                4 << 10,
                                0.5e-6,
                                List.of(new TimedSize(8 << 10, 0.25e-6), new TimedSize(64 << 10, 0.25e-6))),
                        new NodeCurve.ChunkCost(
                                8 << 10,
                                1.0e-6,
                                List.of(new TimedSize(16 << 10, 0.8e-6), new TimedSize(COLD, 4.8e-6)))));
        NodeCurve clean = measured.smoothed();
        assertEquals(4.8e-6, clean.stage(8 << 10, COLD), 1e-18);
        assertEquals(
                0.8e-6,
                clean.stage(8 << 10, 16 << 10),
                1e-18,
                "within the small chunk's range the bound holds: 4 x 0.25 us");
        NodeCurve inflated = new NodeCurve(
                IntraNode.FANOUT,
                4,
                List.of(
                        measured.chunks().get(0),
                        new NodeCurve.ChunkCost(
                                8 << 10, 1.0e-6, List.of(new TimedSize(16 << 10, 3e-6), new TimedSize(COLD, 4.8e-6)))));
        assertEquals(1.0e-6, inflated.smoothed().stage(8 << 10, 16 << 10), 1e-18);
    }

    @Test
    void aFlatTreeOnOneHostPaysTheMemoryTermOfTheNodeCurve() {
        Calibration links = TuningFixtures.calibration();
        // The fan-out's stage at 4 chunks is the cached cost; at 64 MiB it is 3x that.
        List<NodeCurve.ChunkCost> costs = List.of(new NodeCurve.ChunkCost(
                1 << 20, 1e-4, List.of(new TimedSize(4 << 20, 1e-4), new TimedSize(COLD, 3e-4))));
        Calibration cold = Calibration.measured(
                links.hardware(),
                "",
                links.links(),
                null,
                List.of(),
                List.of(new NodeCurve(IntraNode.FANOUT, 4, costs)));
        ClusterShape node = ClusterShape.parse("1x4");
        double cached = new CostModel(links)
                .predict(Algorithm.KNOMIAL, IntraNode.RING, COLD, 1 << 20, 2, node, MemoryKind.HOST);
        double streamed =
                new CostModel(cold).predict(Algorithm.KNOMIAL, IntraNode.RING, COLD, 1 << 20, 2, node, MemoryKind.HOST);
        assertEquals(3 * cached, streamed, cached * 1e-12);
        double small = 4 << 20;
        assertEquals(
                new CostModel(links)
                        .predict(Algorithm.KNOMIAL, IntraNode.RING, (long) small, 1 << 20, 2, node, MemoryKind.HOST),
                new CostModel(cold)
                        .predict(Algorithm.KNOMIAL, IntraNode.RING, (long) small, 1 << 20, 2, node, MemoryKind.HOST),
                1e-15,
                "in cache: the link alone");
        ClusterShape twoHosts = ClusterShape.parse("2x4");
        assertEquals(
                new CostModel(links)
                        .predict(Algorithm.KNOMIAL, IntraNode.RING, COLD, 1 << 20, 2, twoHosts, MemoryKind.HOST),
                new CostModel(cold)
                        .predict(Algorithm.KNOMIAL, IntraNode.RING, COLD, 1 << 20, 2, twoHosts, MemoryKind.HOST),
                1e-12,
                "across a network the network link paces the tree");
    }
}
