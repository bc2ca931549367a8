package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.junit.jupiter.api.Test;

class LinkCalibrationTest {
    /** A network whose sends switch from eager to rendezvous above 32 KiB: one extra round trip of 100 us. */
    private static LinkCalibration rendezvousAbove32K() {
        List<TimedSize> curve = new ArrayList<>();
        for (long b = 64; b <= 4 << 20; b *= 2) {
            curve.add(new TimedSize(b, (b > 32 << 10 ? 120e-6 : 20e-6) + b / 1e9));
        }
        return new LinkCalibration(LinkKind.NETWORK, 20e-6, 1e9, "measured", curve, List.of());
    }

    @Test
    void theCurveIsExactAtMeasuredSizesLogLogBetweenFlatBelowAndScaledAbove() {
        LinkCalibration link = rendezvousAbove32K();
        assertEquals(120e-6 + 65536 / 1e9, link.seconds(65536), 1e-15);
        assertEquals(20e-6 + 32768 / 1e9, link.seconds(32768), 1e-15);
        double between = link.seconds(48 << 10);
        assertTrue(between > link.seconds(32 << 10) && between < link.seconds(64 << 10), "log-log between: " + between);
        assertEquals(link.seconds(64), link.seconds(1), 0, "below the smallest size: its time");
        assertEquals(2 * link.seconds(4 << 20), link.seconds(8 << 20), 1e-15, "above the largest: scaled by size");
    }

    @Test
    void withoutACurveTheStraightLine() {
        LinkCalibration line = new LinkCalibration(LinkKind.NETWORK, 20e-6, 1e9, "measured");
        assertTrue(line.transfers().isEmpty());
        assertEquals(20e-6 + 65536 / 1e9, line.seconds(65536), 1e-15);
    }

    @Test
    void aStreamPaysTheGapPerFurtherSegmentNotTheWholeTransfer() {
        List<TimedSize> transfers = List.of(new TimedSize(1024, 30e-6), new TimedSize(1 << 20, 700e-6));
        List<TimedSize> gaps = List.of(new TimedSize(1024, 2e-6), new TimedSize(1 << 20, 600e-6));
        LinkCalibration link = new LinkCalibration(LinkKind.NETWORK, 29e-6, 1.5e9, "measured", transfers, gaps);
        assertEquals(2e-6, link.gapSeconds(1024), 1e-15);
        assertEquals(30e-6, link.seconds(1024), 1e-15);
        LinkCalibration noGaps = rendezvousAbove32K();
        assertEquals(
                noGaps.seconds(4096), noGaps.gapSeconds(4096), 0, "without a stream curve a segment costs a transfer");
        // A tree of 2 over 4 segments: one transfer, then three gaps.
        assertEquals(30e-6 + 3 * 2e-6, CostModel.tree(1024, 4, 2, 2, link), 1e-15);
    }

    @Test
    void badCurvesAreRefusedNamingTheLink() {
        IllegalArgumentException descending = assertThrows(
                IllegalArgumentException.class,
                () -> new LinkCalibration(
                        LinkKind.NETWORK,
                        20e-6,
                        1e9,
                        "measured",
                        List.of(new TimedSize(1024, 1e-5), new TimedSize(64, 1e-5)),
                        List.of()));
        assertTrue(descending.getMessage().startsWith("network: transfer times"), descending.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> new LinkCalibration(
                        LinkKind.NETWORK, 20e-6, 1e9, "measured", List.of(new TimedSize(64, 0)), List.of()));
        assertThrows(
                IllegalArgumentException.class,
                () -> new LinkCalibration(
                        LinkKind.NETWORK, 20e-6, 1e9, "measured", List.of(), List.of(new TimedSize(64, Double.NaN))));
    }

    @Test
    void curvesSurviveJsonAndOlderLinksWithoutThemStillLoad() throws Exception {
        Calibration cal = Calibration.measured("hw", "now", List.of(rendezvousAbove32K()), null, List.of());
        assertEquals(cal, TuningJson.mapper().readValue(TuningJson.mapper().writeValueAsBytes(cal), Calibration.class));
        String older = "{\"formatVersion\":1,\"hardware\":\"hw\",\"created\":\"now\",\"links\":[{\"kind\":\"NETWORK\","
                + "\"startupSeconds\":2.0E-5,\"bytesPerSecond\":1.0E9,\"source\":\"measured\"}]}";
        LinkCalibration read =
                TuningJson.mapper().readValue(older, Calibration.class).link(LinkKind.NETWORK);
        assertTrue(read.transfers().isEmpty());
        assertEquals(20e-6 + 1000 / 1e9, read.seconds(1000), 1e-15);
    }

    @Test
    void theModelKeepsNetworkChunksBelowTheRendezvousStep() {
        Calibration line = TuningFixtures.calibration();
        List<LinkCalibration> links = new ArrayList<>(line.links());
        links.removeIf(l -> l.kind() == LinkKind.NETWORK);
        links.add(rendezvousAbove32K());
        Calibration stepped = Calibration.measured(line.hardware(), line.created(), links, null, List.of());
        ClusterShape shape = ClusterShape.parse("4x2");
        for (long m : new long[] {64 << 10, 128 << 10, 256 << 10}) {
            CostModel.Choice c = new CostModel(stepped)
                    .best(m, shape, MemoryKind.HOST, 4 << 20, Algorithm.HIERARCHICAL, IntraNode.RING, 0, 0);
            assertTrue(c.chunkBytes() <= 32 << 10, m + " B: chunk " + c.chunkBytes() + " crosses the rendezvous step");
        }
        CostModel.Choice whole = new CostModel(line)
                .best(64 << 10, shape, MemoryKind.HOST, 4 << 20, Algorithm.HIERARCHICAL, IntraNode.RING, 0, 0);
        assertEquals(64 << 10, whole.chunkBytes(), "the straight line alone sees no step and sends the message whole");
    }

    @Test
    void anUncalibratedNetworkKeepsEveryChunkThatCrossesItWithinTheEagerLimit() {
        Calibration measuredAtCreate = Calibration.builtIn()
                .withLink(new LinkCalibration(LinkKind.NETWORK, 74e-6, 111e6, LinkCalibration.MEASURED_AT_CREATE));
        for (Calibration cal : List.of(Calibration.builtIn(), measuredAtCreate)) {
            CostModel model = new CostModel(cal);
            for (String layout : List.of("4,2,2", "2x2", "8x1", "16x4")) {
                ClusterShape shape = ClusterShape.parse(layout);
                assertTrue(model.untimedNetwork(shape), layout);
                for (long m = 1; m <= 64 << 20; m *= 2) {
                    for (Algorithm a : List.of(Algorithm.AUTO, Algorithm.HIERARCHICAL, Algorithm.KNOMIAL)) {
                        CostModel.Choice c = model.best(m, shape, MemoryKind.HOST, 4 << 20, a, IntraNode.AUTO, 0, 0);
                        if (c.algorithm() != Algorithm.NATIVE) {
                            assertTrue(
                                    c.chunkBytes() <= Candidates.NETWORK_EAGER_CHUNK_BYTES,
                                    layout + ", " + m + " B, "
                                            + cal.link(LinkKind.NETWORK).source() + ": " + c);
                        }
                    }
                }
            }
            // The largest chunk it may take, where a larger one would have been chosen.
            assertEquals(Candidates.NETWORK_EAGER_CHUNK_BYTES, hierarchicalChunkAt64MiB(model, 0));
            // A chunk the options fix is kept, and inside one host (or on virtual nodes) no network is crossed.
            assertEquals(256 << 10, hierarchicalChunkAt64MiB(model, 256 << 10));
            assertTrue(!model.untimedNetwork(ClusterShape.parse("1x4")));
            assertTrue(!model.untimedNetwork(ClusterShape.parse("2x2 virtual")));
        }
        // A calibration's own figures (here a straight line) are not capped: its curves would show the step.
        assertTrue(!new CostModel(TuningFixtures.calibration()).untimedNetwork(ClusterShape.parse("4,2,2")));
    }

    /** The hierarchy's chunk for 64 MiB on 4+2+2, with {@code fixedChunk} from the options (0: open). */
    private static int hierarchicalChunkAt64MiB(CostModel model, int fixedChunk) {
        return model.best(
                        64 << 20,
                        ClusterShape.parse("4,2,2"),
                        MemoryKind.HOST,
                        4 << 20,
                        Algorithm.HIERARCHICAL,
                        IntraNode.AUTO,
                        fixedChunk,
                        0)
                .chunkBytes();
    }
}
