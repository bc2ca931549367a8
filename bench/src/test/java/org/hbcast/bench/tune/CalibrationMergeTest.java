package org.hbcast.bench.tune;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.hbcast.plan.IntraNode;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.NodeCurve;
import org.hbcast.tuning.TimedSize;
import org.junit.jupiter.api.Test;

class CalibrationMergeTest {
    /** Launches merge when their hardware matches; what it says does not matter here. */
    private static final String HARDWARE = "cpu=Test CPU 9000";

    /**
     * A launch whose figures are all {@code scale} times a base: a network link with a curve at 1 KiB
     * and 1 MiB, native times at 64 KiB and 1 MiB, and ring curves on 4 ranks at chunks 64 and 128 KiB.
     */
    private static Calibration launch(double scale, String created) {
        LinkCalibration net = new LinkCalibration(
                LinkKind.NETWORK,
                scale * 10e-6,
                1e9 / scale,
                "measured",
                List.of(new TimedSize(1 << 10, scale * 11e-6), new TimedSize(1 << 20, scale * 1e-3)),
                List.of(new TimedSize(1 << 10, scale * 2e-6), new TimedSize(1 << 20, scale * 0.9e-3)));
        List<NodeCurve.ChunkCost> chunks = List.of(
                new NodeCurve.ChunkCost(64 << 10, scale * 30e-6, List.of(new TimedSize(16 << 20, scale * 20e-6))),
                new NodeCurve.ChunkCost(128 << 10, scale * 50e-6, List.of(new TimedSize(16 << 20, scale * 40e-6))));
        return Calibration.measured(
                HARDWARE,
                created,
                List.of(net),
                "1x4",
                List.of(new TimedSize(64 << 10, scale * 30e-6), new TimedSize(1 << 20, scale * 400e-6)),
                List.of(new NodeCurve(IntraNode.RING, 4, chunks)));
    }

    private static Calibration merge(List<Calibration> launches) {
        return CalibrationMerge.of(launches, CalibrationMerge.Statistic.MEDIAN);
    }

    @Test
    void bySlowestEveryFigureIsTheSlowestLaunchs() {
        Calibration m = CalibrationMerge.of(
                List.of(launch(1, "a"), launch(5, "b"), launch(2, "c")), CalibrationMerge.Statistic.SLOWEST);
        Calibration five = launch(5, "b");
        LinkCalibration net = m.link(LinkKind.NETWORK);
        assertEquals(five.link(LinkKind.NETWORK).startupSeconds(), net.startupSeconds(), 1e-15);
        assertEquals(five.link(LinkKind.NETWORK).bytesPerSecond(), net.bytesPerSecond(), 1e-3, "the lowest bandwidth");
        assertEquals(five.link(LinkKind.NETWORK).transfers(), net.transfers());
        assertEquals(five.link(LinkKind.NETWORK).gaps(), net.gaps());
        assertEquals(five.nativeTimes(), m.nativeTimes());
        assertEquals(five.nodeCurve(IntraNode.RING, 4), m.nodeCurve(IntraNode.RING, 4));
        assertEquals("c", m.created(), "the last launch's time");
    }

    @Test
    void bySlowestALuckyLaunchCannotMakeAChunkLookCheap() {
        Calibration lucky = withRingStages(launch(1, "a"), 20e-6, 8e-6);
        Calibration usual = withRingStages(launch(1, "b"), 20e-6, 40e-6);
        Calibration m = CalibrationMerge.of(List.of(lucky, usual, lucky), CalibrationMerge.Statistic.SLOWEST);
        assertEquals(40e-6, m.nodeCurve(IntraNode.RING, 4).stage(128 << 10, 16 << 20), 1e-12);
    }

    @Test
    void everyFigureIsTheMedianOfTheLaunches() {
        Calibration m = merge(List.of(launch(1, "a"), launch(5, "b"), launch(2, "c")));
        Calibration two = launch(2, "c");
        LinkCalibration net = m.link(LinkKind.NETWORK);
        assertEquals(two.link(LinkKind.NETWORK).startupSeconds(), net.startupSeconds(), 1e-15);
        assertEquals(two.link(LinkKind.NETWORK).bytesPerSecond(), net.bytesPerSecond(), 1e-3);
        assertEquals(two.link(LinkKind.NETWORK).transfers(), net.transfers());
        assertEquals(two.link(LinkKind.NETWORK).gaps(), net.gaps());
        assertEquals(two.nativeTimes(), m.nativeTimes());
        assertEquals(two.nodeCurve(IntraNode.RING, 4), m.nodeCurve(IntraNode.RING, 4));
        assertEquals("1x4", m.nativeLayout());
        assertEquals("c", m.created(), "the last launch's time");
        assertEquals(HARDWARE, m.hardware());
    }

    @Test
    void anEvenCountTakesTheMeanOfTheMiddleTwo() {
        Calibration m = merge(List.of(launch(1, "a"), launch(3, "b")));
        assertEquals(2 * 30e-6, m.nativeTimes().get(0).seconds(), 1e-15);
        assertEquals(
                2 * 20e-6,
                m.nodeCurve(IntraNode.RING, 4).chunks().get(0).stages().get(0).seconds(),
                1e-15);
    }

    @Test
    void oneLaunchIsItself() {
        Calibration one = launch(1, "a");
        assertEquals(one, merge(List.of(one)));
    }

    @Test
    void aLaunchOutOfLineAtOnePointLosesToTheOthersThere() {
        Calibration odd = launch(1, "b");
        List<NodeCurve.ChunkCost> chunks =
                new ArrayList<>(odd.nodeCurve(IntraNode.RING, 4).chunks());
        // This launch's ring ran a 128 KiB chunk in a fifth of the time: one launch's luck, not the machine.
        chunks.set(1, new NodeCurve.ChunkCost(128 << 10, 50e-6, List.of(new TimedSize(16 << 20, 8e-6))));
        odd = Calibration.measured(
                HARDWARE,
                "b",
                odd.links(),
                "1x4",
                odd.nativeTimes(),
                List.of(new NodeCurve(IntraNode.RING, 4, chunks)));
        Calibration m = merge(List.of(launch(1, "a"), odd, launch(1.1, "c")));
        assertEquals(40e-6, m.nodeCurve(IntraNode.RING, 4).stage(128 << 10, 16 << 20), 1e-12);
    }

    @Test
    void theMedianCurveIsSmoothedAgain() {
        // The median of two launches can leave a chunk dearer than a larger one; smoothing caps it.
        Calibration a = withRingStages(launch(1, "a"), 50e-6, 40e-6);
        Calibration b = withRingStages(launch(1, "b"), 30e-6, 40e-6);
        Calibration c = withRingStages(launch(1, "c"), 60e-6, 20e-6);
        NodeCurve ring = merge(List.of(a, b, c)).nodeCurve(IntraNode.RING, 4);
        assertEquals(40e-6, ring.chunks().get(1).stages().get(0).seconds(), 1e-15);
        assertEquals(40e-6, ring.chunks().get(0).stages().get(0).seconds(), 1e-15, "50 us capped by the larger chunk");
    }

    private static Calibration withRingStages(Calibration c, double small, double large) {
        List<NodeCurve.ChunkCost> chunks = List.of(
                new NodeCurve.ChunkCost(64 << 10, 30e-6, List.of(new TimedSize(16 << 20, small))),
                new NodeCurve.ChunkCost(128 << 10, 50e-6, List.of(new TimedSize(16 << 20, large))));
        return Calibration.measured(
                HARDWARE,
                c.created(),
                c.links(),
                "1x4",
                c.nativeTimes(),
                List.of(new NodeCurve(IntraNode.RING, 4, chunks)));
    }

    @Test
    void launchesThatDoNotMatchAreRefusedWithTheLaunchAndPointNamed() {
        Calibration base = launch(1, "a");
        Calibration foreign =
                Calibration.measured("cpu=Other", "b", base.links(), "1x4", base.nativeTimes(), base.nodeCurves());
        assertMessage(List.of(base, foreign), "calibration launch 2 is of hardware 'cpu=Other'");

        Calibration otherLayout =
                Calibration.measured(HARDWARE, "b", base.links(), "2x2", base.nativeTimes(), base.nodeCurves());
        assertMessage(List.of(base, otherLayout), "launch 2 timed Open MPI's bcast on layout 2x2, launch 1 on 1x4");

        Calibration noLinks =
                Calibration.measured(HARDWARE, "b", List.of(), "1x4", base.nativeTimes(), base.nodeCurves());
        assertMessage(List.of(base, base, noLinks), "calibration launch 3 has no network link");

        Calibration fewerNative = Calibration.measured(
                HARDWARE, "b", base.links(), "1x4", base.nativeTimes().subList(0, 1), base.nodeCurves());
        assertMessage(
                List.of(base, fewerNative),
                "has Open MPI's bcast times at sizes [65536], launch 1 at [65536, 1048576]");

        NodeCurve ring = base.nodeCurve(IntraNode.RING, 4);
        Calibration fewerChunks = Calibration.measured(
                HARDWARE,
                "b",
                base.links(),
                "1x4",
                base.nativeTimes(),
                List.of(new NodeCurve(IntraNode.RING, 4, ring.chunks().subList(0, 1))));
        assertMessage(
                List.of(base, fewerChunks), "has 1 chunk sizes in its node curve of the ring on 4 ranks, launch 1 2");

        Calibration noCurve = Calibration.measured(HARDWARE, "b", base.links(), "1x4", base.nativeTimes(), List.of());
        assertMessage(List.of(base, noCurve), "has no node curve of the ring on 4 ranks");
        assertMessage(List.of(noCurve, base), "launch 2 measured 1 node curves, launch 1 0");

        assertThrows(IllegalArgumentException.class, () -> merge(List.of()));
        assertThrows(NullPointerException.class, () -> CalibrationMerge.of(List.of(base), null));
    }

    /** A two-level ring curve on nodes of 2, smooth already, every figure {@code scale} times a base. */
    private static NodeCurve twoLevelRing(double scale) {
        return new NodeCurve(
                IntraNode.RING,
                2,
                List.of(
                        new NodeCurve.ChunkCost(
                                32 << 10, scale * 40e-6, List.of(new TimedSize(16 << 20, scale * 20e-6))),
                        new NodeCurve.ChunkCost(
                                64 << 10, scale * 150e-6, List.of(new TimedSize(16 << 20, scale * 60e-6))),
                        new NodeCurve.ChunkCost(
                                128 << 10, scale * 200e-6, List.of(new TimedSize(16 << 20, scale * 100e-6)))));
    }

    private static Calibration withTwoLevel(String layout, double scale) {
        return launch(1, "a").withTwoLevel(layout, List.of(twoLevelRing(scale)));
    }

    @Test
    void launchesMergeTheirTwoLevelCurvesAndMustShareTheLayout() {
        Calibration merged = CalibrationMerge.of(
                List.of(withTwoLevel("2x2", 1), withTwoLevel("2x2", 3), withTwoLevel("2x2", 2)),
                CalibrationMerge.Statistic.SLOWEST);
        assertEquals(twoLevelRing(3), merged.twoLevelCurve(IntraNode.RING), "every figure from the slowest launch");
        assertEquals("2x2", merged.twoLevelLayout());

        assertMessage(
                List.of(withTwoLevel("2x2", 1), withTwoLevel("2x4", 1)),
                "launch 2 timed the two-level broadcast on layout 2x4, launch 1 on 2x2");
        assertMessage(
                List.of(withTwoLevel("2x2", 1), launch(1, "b")),
                "launch 2 timed the two-level broadcast on layout null");
    }

    private static void assertMessage(List<Calibration> launches, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> merge(launches));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(
                e.getMessage().contains("calibrate every launch on the same hardware with the same options"),
                e.getMessage());
    }
}
