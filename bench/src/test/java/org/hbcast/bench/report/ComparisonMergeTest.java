package org.hbcast.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ComparisonMergeTest {
    static final int[] ONE_NODE = {4};
    static final int[] TWO_NODES = {2, 2};

    static Config openMpi(String name, int order) {
        return new Config(name, order, true, "", null, null);
    }

    static Config hbcast(int order) {
        return new Config(Config.HBCAST, order, false, "", null, null);
    }

    /** A run of the given implementations; values[i][k] is impl k's latency at sizes[i]. */
    static RunFile run(int[] nodes, List<String> impls, long[] sizes, double[][] values, double[] memcpy) {
        List<RunFile.Sample> samples = new ArrayList<>();
        for (int i = 0; i < sizes.length; i++) {
            Map<String, Double> avg = new LinkedHashMap<>();
            for (int k = 0; k < impls.size(); k++) {
                avg.put(impls.get(k), values[i][k]);
            }
            samples.add(new RunFile.Sample(sizes[i], avg, memcpy == null ? null : memcpy[i]));
        }
        int ranks = 0;
        for (int n : nodes) {
            ranks += n;
        }
        return new RunFile(ranks, nodes, impls, samples);
    }

    static RunFile nativeRun(int[] nodes, long[] sizes, double... us) {
        double[][] v = new double[us.length][];
        for (int i = 0; i < us.length; i++) {
            v[i] = new double[] {us[i]};
        }
        return run(nodes, List.of("native"), sizes, v, null);
    }

    @Test
    void medianOfOddAndEvenCounts() {
        assertEquals(2.0, ComparisonMerge.median(List.of(3.0, 1.0, 2.0)));
        assertEquals(2.5, ComparisonMerge.median(List.of(4.0, 1.0, 2.0, 3.0)));
        assertEquals(7.0, ComparisonMerge.median(List.of(7.0)));
        assertThrows(IllegalArgumentException.class, () -> ComparisonMerge.median(List.of()));
    }

    @Test
    void mediansOverRoundsBestNativeAndRatio() {
        long[] sizes = {1, 1 << 20};
        Map<String, List<RunFile>> runs = new LinkedHashMap<>();
        runs.put(
                "tuned",
                List.of(
                        nativeRun(TWO_NODES, sizes, 10, 1000),
                        nativeRun(TWO_NODES, sizes, 30, 3000),
                        nativeRun(TWO_NODES, sizes, 20, 2000)));
        runs.put("adapt", List.of(nativeRun(TWO_NODES, sizes, 15, 900), nativeRun(TWO_NODES, sizes, 25, 800)));
        // hbcast's own native is fastest at 1 B but is no candidate for best native.
        runs.put(
                Config.HBCAST,
                List.of(run(TWO_NODES, List.of("native", "auto"), sizes, new double[][] {{1, 16}, {2000, 500}}, null)));
        Comparison c =
                ComparisonMerge.merge("virtual2x2", List.of(hbcast(3), openMpi("adapt", 2), openMpi("tuned", 1)), runs);

        assertEquals(
                List.of("tuned", "adapt", "native", "auto"),
                c.columns().stream().map(Comparison.Column::name).toList());
        assertEquals(3, c.rounds());
        assertEquals(4, c.ranks());
        assertFalse(c.singleNode());
        Comparison.Row small = c.rows().get(0);
        assertEquals(20.0, small.latencyUs().get("tuned"));
        assertEquals(20.0, small.latencyUs().get("adapt"));
        assertEquals(20.0, small.bestNative());
        assertEquals(20.0 / 16, small.ratio(), 1e-12);
        Comparison.Row large = c.rows().get(1);
        assertEquals(850.0, large.bestNative());
        assertEquals("adapt", large.bestNativeName());
        assertEquals(850.0 / 500, large.ratio(), 1e-12);
        assertNull(large.copyBoundFraction(), "no copy bound across nodes");
    }

    @Test
    void missingConfigsAndSizesLeaveGapsNotErrors() {
        long[] both = {1, 2};
        long[] first = {1};
        Map<String, List<RunFile>> runs = new LinkedHashMap<>();
        runs.put("tuned", List.of(nativeRun(ONE_NODE, both, 10, 20), nativeRun(ONE_NODE, first, 30)));
        runs.put("han", List.of());
        Config han = new Config(
                "han", 2, true, "--mca coll_han_priority 100", "coll/han: comm has only local processes", null);
        Comparison c = ComparisonMerge.merge("node4", List.of(openMpi("tuned", 1), han), runs);

        assertEquals(
                List.of("tuned", "han"),
                c.columns().stream().map(Comparison.Column::name).toList());
        assertEquals(20.0, c.rows().get(0).latencyUs().get("tuned"), "median of 10 and 30");
        assertEquals(20.0, c.rows().get(1).latencyUs().get("tuned"), "the one round that has size 2");
        assertFalse(c.rows().get(0).latencyUs().containsKey("han"));
        assertNull(c.rows().get(0).ratio(), "no auto, no ratio");
        assertEquals("tuned", c.rows().get(0).bestNativeName());
    }

    @Test
    void noOpenMpiDataMeansNoBestNative() {
        long[] sizes = {8};
        Comparison c = ComparisonMerge.merge(
                "node4",
                List.of(hbcast(1)),
                Map.of(Config.HBCAST, List.of(run(ONE_NODE, List.of("auto"), sizes, new double[][] {{5}}, null))));
        assertNull(c.rows().get(0).bestNative());
        assertNull(c.rows().get(0).bestNativeName());
        assertNull(c.rows().get(0).ratio());
    }

    @Test
    void copyBoundOnOneNodeFromSixtyFourKibibytes() {
        long[] sizes = {32 * Sizes.KIB, 64 * Sizes.KIB, Sizes.MIB};
        Comparison c = ComparisonMerge.merge(
                "node4",
                List.of(hbcast(1)),
                Map.of(
                        Config.HBCAST,
                        List.of(run(ONE_NODE, List.of("auto"), sizes, new double[][] {{10}, {20}, {400}}, new double[] {
                            1, 4, 100
                        }))));
        assertNull(c.rows().get(0).copyBoundFraction(), "below 64 KiB");
        assertEquals(3 * 4 / 20.0, c.rows().get(1).copyBoundFraction(), 1e-12);
        assertEquals(3 * 100 / 400.0, c.rows().get(2).copyBoundFraction(), 1e-12);
        assertEquals(100.0, c.rows().get(2).memcpyUs());
        assertTrue(c.singleNode());
    }

    @Test
    void runsOnDifferentLayoutsAreRefused() {
        long[] sizes = {1};
        Map<String, List<RunFile>> runs = new LinkedHashMap<>();
        runs.put("tuned", List.of(nativeRun(ONE_NODE, sizes, 1)));
        runs.put("adapt", List.of(nativeRun(TWO_NODES, sizes, 1)));
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                () -> ComparisonMerge.merge("x", List.of(openMpi("tuned", 1), openMpi("adapt", 2)), runs));
        assertTrue(e.getMessage().contains("adapt") && e.getMessage().contains("tuned"), e.getMessage());
    }

    @Test
    void openMpiConfigMeasuredWithOurImplementationIsRefused() {
        long[] sizes = {1};
        Map<String, List<RunFile>> runs = Map.of(
                "tuned", List.of(run(ONE_NODE, List.of("native", "auto"), sizes, new double[][] {{1, 2}}, null)));
        assertThrows(
                IllegalArgumentException.class, () -> ComparisonMerge.merge("x", List.of(openMpi("tuned", 1)), runs));
    }

    @Test
    void clashingColumnNamesAreRefused() {
        long[] sizes = {1};
        Map<String, List<RunFile>> runs = new LinkedHashMap<>();
        runs.put("auto", List.of(nativeRun(ONE_NODE, sizes, 1)));
        runs.put(Config.HBCAST, List.of(run(ONE_NODE, List.of("auto"), sizes, new double[][] {{1}}, null)));
        assertThrows(
                IllegalArgumentException.class,
                () -> ComparisonMerge.merge("x", List.of(openMpi("auto", 1), hbcast(2)), runs));
    }

    @Test
    void nothingToMergeIsAnError() {
        assertThrows(
                IllegalArgumentException.class,
                () -> ComparisonMerge.merge("x", List.of(openMpi("tuned", 1)), Map.of("tuned", List.of())));
    }
}
