package org.hbcast.bench.report;

import static org.hbcast.bench.report.ComparisonMergeTest.ONE_NODE;
import static org.hbcast.bench.report.ComparisonMergeTest.TWO_NODES;
import static org.hbcast.bench.report.ComparisonMergeTest.hbcast;
import static org.hbcast.bench.report.ComparisonMergeTest.nativeRun;
import static org.hbcast.bench.report.ComparisonMergeTest.openMpi;
import static org.hbcast.bench.report.ComparisonMergeTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MarkdownReportTest {

    private static Comparison oneNode() {
        long[] sizes = {1, 64 * Sizes.KIB, Sizes.MIB, 64 * Sizes.MIB};
        Map<String, List<RunFile>> runs = new LinkedHashMap<>();
        runs.put("tuned", List.of(nativeRun(ONE_NODE, sizes, 10, 100, 2000, 100000)));
        runs.put("han", List.of());
        runs.put(
                Config.HBCAST,
                List.of(run(
                        ONE_NODE,
                        List.of("native", "auto"),
                        sizes,
                        new double[][] {{9, 10.5}, {90, 100}, {1900, 1000}, {99000, 50000}},
                        new double[] {0.01, 5, 100, 7500})));
        Config han = new Config(
                "han",
                2,
                true,
                "--mca coll_han_priority 100",
                "coll/han on MPI_COMM_WORLD: comm has only local processes",
                null);
        return ComparisonMerge.merge("node4", List.of(openMpi("tuned", 1), han, hbcast(3)), runs);
    }

    @Test
    void tableHasEveryColumnAndOneRowPerSize() {
        String md = MarkdownReport.render(oneNode());
        List<String> table = md.lines().filter(l -> l.startsWith("|")).toList();
        assertEquals(
                "| size | tuned | han | native | auto | best native | best native / auto | A/A tuned / native"
                        + " | memcpy GB/s | copy bound / auto |",
                table.get(0));
        assertEquals(2 + 4, table.size(), md);
        assertEquals("| 1 B | 10.00 | n/a | 9.00 | 10.50 | 10.00 (tuned) | 0.95x | 1.11x | 0.10 | n/a |", table.get(2));
        assertEquals(
                "| 1 MiB | 2000.00 | n/a | 1900.00 | 1000.00 | 2000.00 (tuned) | 2.00x | 1.05x | 10.49 | 30% |",
                table.get(4));
        assertTrue(md.contains("- A/A: Open MPI's default bcast in its own launch (`tuned`)"), md);
        assertTrue(
                md.startsWith("### Second view, OSU's method: each rank's mean latency (us) over back-to-back calls,"
                        + " node4: 4 ranks on 1 node [4], median of 1 round"),
                md);
    }

    @Test
    void notesSayWhatWasNotMeasuredAndWhy() {
        String md = MarkdownReport.render(oneNode());
        assertTrue(
                md.contains("`han`: Open MPI's own bcast through the Java bindings, `--mca coll_han_priority 100`;"
                        + " **not measured**: coll/han on MPI_COMM_WORLD: comm has only local processes"),
                md);
        assertTrue(md.contains("`tuned`: Open MPI's own bcast through the Java bindings, default MCA parameters"), md);
    }

    @Test
    void goalsAreCheckedAgainstTheWorstSize() {
        List<Goals.Goal> goals = Goals.of(oneNode());
        assertEquals(3, goals.size());
        assertEquals("worst 2.00x at 1 MiB", goals.get(0).measured());
        assertTrue(goals.get(0).met());
        assertEquals("worst 1.05x slower at 1 B", goals.get(1).measured());
        assertTrue(goals.get(1).met(), "1.05x slower is within 1.1x");
        // 1 MiB: 3 x 100 us / 1000 us = 30%; 64 MiB: 3 x 7500 / 50000 = 45%.
        assertEquals("worst 30% at 1 MiB", goals.get(2).measured());
        assertFalse(goals.get(2).met());
        String md = MarkdownReport.render(oneNode());
        assertTrue(
                md.contains("- >= 1 MiB on one node: auto >= 60% of the copy bound: worst 30% at 1 MiB -> NOT met"),
                md);
    }

    @Test
    void acrossNodesThereIsNoCopyBoundAndGapsAreMarked() {
        long[] sizes = {1};
        Comparison c = ComparisonMerge.merge(
                "testbed2x2",
                List.of(openMpi("tuned", 1), openMpi("adapt", 2)),
                Map.of("tuned", List.of(nativeRun(TWO_NODES, sizes, 4)), "adapt", List.of()));
        String md = MarkdownReport.render(c);
        assertTrue(md.contains("| 1 B | 4.00 | n/a | 4.00 (tuned) | n/a |"), md);
        assertFalse(md.contains("copy bound"), md);
        List<Goals.Goal> goals = Goals.of(c);
        assertEquals(2, goals.size());
        assertNull(goals.get(0).met());
    }
}
