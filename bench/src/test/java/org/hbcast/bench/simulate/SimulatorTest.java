package org.hbcast.bench.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.plan.Algorithm;
import org.hbcast.tuning.Calibration;
import org.junit.jupiter.api.Test;

class SimulatorTest {
    private static final Fabric.Link NET = new Fabric.Link(1.5e-6, 12.5e9);

    @Test
    void lowerBoundIsSizeOverBandwidthPlusLog2NodesLatencies() {
        assertEquals((64 << 20) / 12.5e9 + 8 * 1.5e-6, Simulator.lowerBound(64 << 20, 256, NET), 1e-15);
        assertEquals((1 << 20) / 12.5e9 + 9 * 1.5e-6, Simulator.lowerBound(1 << 20, 257, NET), 1e-15);
        assertEquals(1e3 / 12.5e9, Simulator.lowerBound(1000, 1, NET), 1e-15);
    }

    @Test
    void hierarchicalSchedulesPlayTheSelectorsPlanForTheirLeaderShape() {
        Simulator sim = new Simulator(16, 4, NET, Calibration.builtIn());
        for (Schedule s : new Schedule[] {Schedule.HIERARCHICAL_CHAIN, Schedule.HIERARCHICAL_TWO_TREE}) {
            assertEquals(Algorithm.HIERARCHICAL, sim.plan(s, 16 << 20).algorithm());
            assertEquals(s.inter(), sim.plan(s, 16 << 20).leaderShape());
            assertTrue(
                    sim.run(s, 16 << 20).plan().startsWith(s.toString()),
                    sim.run(s, 16 << 20).plan());
        }
    }

    @Test
    void noScheduleBeatsOneTransferOfTheWholeMessage() {
        // Every leaf receives all of the message through its host's ejection, at least one latency after
        // the first byte left. (The latency term of the lower bound is a single-port figure: here a
        // sender's latencies overlap, and a radix-4 tree can beat ceil(log2 N) latencies.)
        Simulator sim = new Simulator(32, 2, NET, Calibration.builtIn());
        for (Schedule s : Schedule.values()) {
            for (long m : new long[] {1 << 10, 1 << 20, 64 << 20}) {
                double t = sim.run(s, m).seconds();
                assertTrue(t >= NET.seconds(m) * (1 - 1e-9), s + " at " + m + ": " + t);
            }
        }
    }

    @Test
    void hanIsABinomialTreeOfHalfMebibyteSegmentsAmongOneRankNodes() {
        Fabric.Link lat0 = new Fabric.Link(0, 1e9);
        Simulator sim = new Simulator(8, 1, lat0, Calibration.builtIn());
        long m = 8L << 20;
        double seg = (512 << 10) / 1e9;
        // The root sends each of the 16 segments to its 3 children: 48 segment times, and the last
        // segment then needs 2 more hops to the far leaf... but its child 4 forwards while the root sends.
        double t = sim.run(Schedule.HAN, m).seconds();
        assertTrue(t >= 48 * seg - 1e-12 && t <= 48 * seg + 3 * seg, "han " + t);
    }

    @Test
    void tunedFollowsOpenMpisFixedRules() {
        assertEquals(8, TunedRules.bcastAlgorithm(2048, 64 << 20));
        assertEquals(7, TunedRules.bcastAlgorithm(2048, 1 << 10));
        assertEquals(2, TunedRules.bcastAlgorithm(6, 2 << 20));
        assertEquals(1, TunedRules.bcastAlgorithm(6, 512 << 10));
        assertEquals(5, TunedRules.bcastAlgorithm(3, 16 << 20));
        assertEquals(8, TunedRules.bcastAlgorithm(16, 16 << 20));
        assertEquals(7, TunedRules.bcastAlgorithm(100, 16 << 20));
    }

    @Test
    void scheduleNamesRoundTrip() {
        for (Schedule s : Schedule.values()) {
            assertEquals(s, Schedule.parse(s.toString()));
        }
        assertThrows(IllegalArgumentException.class, () -> Schedule.parse("ring"));
    }

    @Test
    void linkFiguresParseRatesAndTimes() {
        assertEquals(125e6, LinkFigures.bytesPerSecond("1gbit"), 1);
        assertEquals(12.5e9, LinkFigures.bytesPerSecond("100gbit"), 1);
        assertEquals(12.5e9, LinkFigures.bytesPerSecond("12.5GB"), 1);
        assertEquals(1.5e-6, LinkFigures.seconds("1.5us"), 1e-15);
        assertEquals(2e-3, LinkFigures.seconds("2ms"), 1e-15);
        assertThrows(IllegalArgumentException.class, () -> LinkFigures.bytesPerSecond("fast"));
        assertThrows(IllegalArgumentException.class, () -> LinkFigures.seconds("3"));
    }
}
