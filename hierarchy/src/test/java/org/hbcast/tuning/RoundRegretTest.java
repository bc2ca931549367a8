package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.hbcast.Algorithm;
import org.hbcast.IntraNode;
import org.junit.jupiter.api.Test;

/**
 * The cost model's choice by least regret over the calibration's rounds: the plan near the best in
 * every kind of spell, not the one the weighed curves price lowest.
 */
class RoundRegretTest {
    private static final long MESSAGE = 256 << 10;

    /**
     * A two-level ring curve on 2x2 at {@value #MESSAGE} B: 8 chunks of 32 KiB take
     * {@code fill32 + 7 * stage32}, one chunk of 256 KiB {@code fill256}; the chunk sizes between
     * are far dearer in every round, so only the two contend.
     */
    private static NodeCurve ring(double fill32, double stage32, double fill256) {
        return new NodeCurve(IntraNode.RING, 2, List.of(
                cost(32 << 10, fill32, stage32),
                cost(64 << 10, 1000e-6, 500e-6),
                cost(128 << 10, 1000e-6, 500e-6),
                cost(256 << 10, fill256, 500e-6)));
    }

    private static NodeCurve.ChunkCost cost(int chunk, double fill, double stage) {
        return new NodeCurve.ChunkCost(chunk, fill, List.of(new TimedSize(MESSAGE, stage), new TimedSize(2 * MESSAGE, stage)));
    }

    /** A fast spell: 8 chunks of 32 KiB (145 us) beat one of 256 KiB (220 us) by 1.52 times. */
    private static final NodeCurve FAST = ring(40e-6, 15e-6, 220e-6);
    /** A slow spell: one chunk of 256 KiB (235 us) beats 8 of 32 KiB (270 us) by 1.15 times. */
    private static final NodeCurve SLOW = ring(60e-6, 30e-6, 235e-6);
    /** A round spoilt halfway: the 32 KiB chunks ran three times their slow figure. */
    private static final NodeCurve SPOILT = ring(180e-6, 90e-6, 235e-6);
    /** The rounds weighed: one chunk of 256 KiB (225 us) just under 8 of 32 KiB (230 us). */
    private static final NodeCurve WEIGHED = ring(55e-6, 25e-6, 225e-6);

    private static Calibration calibration(List<NodeCurve> rounds) {
        List<Calibration.Round> kept = rounds.stream().map(r -> new Calibration.Round(List.of(), List.of(r))).toList();
        return TuningFixtures.calibrationWithNodeCurves(2).withTwoLevel("2x2", List.of(WEIGHED)).withRounds(kept);
    }

    private static CostModel.Choice best(Calibration c) {
        return new CostModel(c).best(MESSAGE, TuningFixtures.TWO_BY_TWO, MemoryKind.HOST, 4 << 20,
                Algorithm.HIERARCHICAL, IntraNode.RING, 0, 0);
    }

    private static List<NodeCurve> rounds(int fast, int slow, int spoilt) {
        List<NodeCurve> r = new ArrayList<>();
        r.addAll(Collections.nCopies(fast, FAST));
        r.addAll(Collections.nCopies(slow, SLOW));
        r.addAll(Collections.nCopies(spoilt, SPOILT));
        return r;
    }

    @Test
    void withoutRoundsTheWeighedCurvesPriceTheOneChunkLowest() {
        CostModel.Choice c = best(calibration(List.of()));
        assertEquals(256 << 10, c.chunkBytes(), c.toString());
        assertEquals(225e-6, c.seconds(), 1e-12);
        assertTrue(Double.isNaN(c.regret()), "no rounds, no regret");
        assertEquals(c, best(calibration(List.of(FAST))), "one round is no comparison: the weighed curves decide");
    }

    @Test
    void theChoiceIsThePlanNearestTheBestInEveryRound() {
        // 32 KiB chunks: 1.0 in the fast rounds, 270/235 in the slow ones; one chunk: 220/145 in the fast ones.
        CostModel.Choice c = best(calibration(rounds(4, 5, 0)));
        assertEquals(32 << 10, c.chunkBytes(), c.toString());
        assertEquals(270.0 / 235, c.regret(), 1e-9);
        assertEquals(230e-6, c.seconds(), 1e-12, "the time reported is still the weighed prediction");
    }

    @Test
    void theWorstNinthOfTheRoundsIsLeftOut() {
        // With one spoilt round of 9 the 32 KiB chunks' worst kept ratio is still the slow rounds'.
        CostModel.Choice c = best(calibration(rounds(4, 4, 1)));
        assertEquals(32 << 10, c.chunkBytes(), c.toString());
        assertEquals(270.0 / 235, c.regret(), 1e-9);
        // Two spoilt rounds of 9 count: 540/235 for the 32 KiB chunks against 220/145 for one chunk.
        CostModel.Choice spoilt = best(calibration(rounds(4, 3, 2)));
        assertEquals(256 << 10, spoilt.chunkBytes(), spoilt.toString());
        assertEquals(220.0 / 145, spoilt.regret(), 1e-9);
        // Of 18 rounds (two launches' calibrations), two are left out.
        assertEquals(32 << 10, best(calibration(rounds(8, 8, 2))).chunkBytes());
    }

    @Test
    void roundsSurviveJsonMergeKeepsEveryLaunchsRoundsAndDeviceBuffersIgnoreThem() throws Exception {
        Calibration one = calibration(rounds(2, 1, 0));
        assertEquals(one, TuningJson.mapper().readValue(TuningJson.mapper().writeValueAsBytes(one), Calibration.class));
        Calibration two = calibration(rounds(0, 2, 1));
        Calibration merged = CalibrationMerge.of(List.of(one, two), CalibrationMerge.Statistic.SLOWEST);
        List<Calibration.Round> expected = new ArrayList<>(one.rounds());
        expected.addAll(two.rounds());
        assertEquals(expected, merged.rounds());
        assertEquals(List.of(SLOW), merged.inRound(3).twoLevelCurves());
        assertEquals(one.nodeCurves(), merged.inRound(3).nodeCurves(), "a round without node curves keeps the weighed ones");
        assertTrue(merged.inRound(0).rounds().isEmpty());
        CostModel.Choice device = new CostModel(merged).best(MESSAGE, TuningFixtures.TWO_BY_TWO, MemoryKind.DEVICE, 4 << 20,
                Algorithm.HIERARCHICAL, IntraNode.RING, 0, 0);
        assertTrue(Double.isNaN(device.regret()), "no round measured device buffers");
        IllegalArgumentException twice = assertThrows(IllegalArgumentException.class,
                () -> new Calibration.Round(List.of(), List.of(FAST, SLOW)));
        assertTrue(twice.getMessage().contains("calibrated twice in a round"), twice.getMessage());
    }
}
