package org.hbcast.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.hbcast.bench.report.BothMethodsSummary.Cell;
import org.hbcast.bench.report.BothMethodsSummary.Verdict;
import org.junit.jupiter.api.Test;

/** The verdicts and the table of the summary of both methods. */
class BothMethodsSummaryTest {
    private static final double NO_FLOOR = Double.NaN;

    @Test
    void autoAtMostTheTargetSlowerMeetsItWhateverTheFloor() {
        assertEquals(Verdict.MET, BothMethodsSummary.verdict(new Cell("tuned", 3.0, NO_FLOOR)));
        assertEquals(Verdict.MET, BothMethodsSummary.verdict(new Cell("tuned", 1.0, 1.0)));
        assertEquals(Verdict.MET, BothMethodsSummary.verdict(new Cell("tuned", 0.91, NO_FLOOR)));
        assertEquals(Verdict.MET, BothMethodsSummary.verdict(new Cell("tuned", 0.91, 5.0)));
    }

    @Test
    void aLargerGapIsInsideTheFloorOnlyUpToTheRunsAaFloor() {
        // Auto 1.25x slower (ratio 0.8).
        assertEquals(Verdict.INSIDE_FLOOR, BothMethodsSummary.verdict(new Cell("adapt", 0.8, 1.25)));
        assertEquals(Verdict.INSIDE_FLOOR, BothMethodsSummary.verdict(new Cell("adapt", 0.8, 1.3)));
        assertEquals(Verdict.MISSED, BothMethodsSummary.verdict(new Cell("adapt", 0.8, 1.2)));
        assertEquals(Verdict.MISSED, BothMethodsSummary.verdict(new Cell("adapt", 0.8, NO_FLOOR)));
        assertEquals(Verdict.MISSED, BothMethodsSummary.verdict(new Cell("adapt", 0.9, 1.0)));
    }

    @Test
    void noFigureIsNotMeasured() {
        assertEquals(Verdict.NOT_MEASURED, BothMethodsSummary.verdict(null));
        assertEquals(Verdict.NOT_MEASURED, BothMethodsSummary.verdict(new Cell("tuned", Double.NaN, 1.0)));
        assertEquals(Verdict.NOT_MEASURED, BothMethodsSummary.verdict(new Cell("tuned", 0, 1.0)));
        assertEquals(Verdict.NOT_MEASURED, BothMethodsSummary.verdict(new Cell("tuned", -1, 1.0)));
        assertEquals(
                Verdict.NOT_MEASURED, BothMethodsSummary.verdict(new Cell("tuned", Double.POSITIVE_INFINITY, 1.0)));
    }

    @Test
    void bothMethodsTakeTheMoreSevereVerdictInEveryPair() {
        for (Verdict a : Verdict.values()) {
            for (Verdict b : Verdict.values()) {
                Verdict both = BothMethodsSummary.combined(a, b);
                assertEquals(both, BothMethodsSummary.combined(b, a), a + " and " + b);
                assertTrue(both == a || both == b, a + " and " + b);
                assertTrue(both.compareTo(a) >= 0 && both.compareTo(b) >= 0, a + " and " + b);
                assertEquals(a == Verdict.MET && b == Verdict.MET, both == Verdict.MET, a + " and " + b);
                assertEquals(a == Verdict.MISSED || b == Verdict.MISSED, both == Verdict.MISSED, a + " and " + b);
            }
        }
    }

    @Test
    void theVerdictCellNamesTheMethodBehindIt() {
        assertEquals("met", BothMethodsSummary.verdictText(Verdict.MET, Verdict.MET));
        assertEquals("missed", BothMethodsSummary.verdictText(Verdict.MISSED, Verdict.MISSED));
        assertEquals("missed (probe)", BothMethodsSummary.verdictText(Verdict.MISSED, Verdict.INSIDE_FLOOR));
        assertEquals("missed (OSU)", BothMethodsSummary.verdictText(Verdict.MET, Verdict.MISSED));
        assertEquals("inside the floor (OSU)", BothMethodsSummary.verdictText(Verdict.MET, Verdict.INSIDE_FLOOR));
        assertEquals("not measured (probe)", BothMethodsSummary.verdictText(Verdict.NOT_MEASURED, Verdict.MET));
    }

    @Test
    void theTableShowsBothFiguresAndCountsTheVerdicts() {
        Map<Long, Cell> probe = Map.of(
                65536L, new Cell("tuned", 0.69, 1.002),
                131072L, new Cell("adapt", 1.78, 1.18),
                1048576L, new Cell("tuned", 0.81, 1.25));
        Map<Long, Cell> osu = Map.of(
                65536L, new Cell("tuned-knomial", 19.95, 4.87),
                131072L, new Cell("tuned", 3.31, 1 / 0.34),
                262144L, new Cell("han", 1.45, 1.34));
        String md = BothMethodsSummary.render(probe, osu);
        List<String> lines = md.lines().toList();
        assertTrue(
                lines.contains("| 64 KiB | tuned | 0.69x | 1.00 | tuned-knomial | 19.95x | 4.87 | missed (probe) |"),
                md);
        assertTrue(lines.contains("| 128 KiB | adapt | 1.78x | 1.18 | tuned | 3.31x | 2.94 | met |"), md);
        assertTrue(lines.contains("| 256 KiB | - | - | - | han | 1.45x | 1.34 | not measured (probe) |"), md);
        assertTrue(lines.contains("| 1 MiB | tuned | 0.81x | 1.25 | - | - | - | not measured (OSU) |"), md);
        assertTrue(
                md.contains("Target under both methods: met at 1 size; not measured at 2 sizes (256 KiB, 1 MiB);"
                        + " missed at 1 size (64 KiB)."),
                md);
        // The rows come in size order.
        assertTrue(md.indexOf("| 64 KiB") < md.indexOf("| 128 KiB") && md.indexOf("| 256 KiB") < md.indexOf("| 1 MiB"));
    }

    @Test
    void aGapInsideTheFloorIsCountedSo() {
        String md = BothMethodsSummary.render(
                Map.of(1048576L, new Cell("tuned", 0.81, 1.30)), Map.of(1048576L, new Cell("adapt", 0.93, 1.19)));
        assertTrue(
                md.contains("| 1 MiB | tuned | 0.81x | 1.30 | adapt | 0.93x | 1.19 | inside the floor (probe) |"), md);
        assertTrue(md.contains("Target under both methods: inside the floor at 1 size (1 MiB)."), md);
        assertFalse(md.contains("missed"), md);
    }

    @Test
    void osuCellsTakeTheBestNativeAndTheTunedOverNativeFloor() {
        Comparison c = new Comparison(
                "node4",
                4,
                new int[] {4},
                1,
                List.of(),
                List.of(),
                List.of(
                        new Comparison.Row(
                                65536,
                                Map.of("tuned", 60.0, "native", 50.0, "adapt", 40.0, "auto", 80.0),
                                40.0,
                                "adapt",
                                0.5,
                                null,
                                null),
                        new Comparison.Row(131072, Map.of("adapt", 40.0), 40.0, "adapt", 1.5, null, null),
                        new Comparison.Row(262144, Map.of("tuned", 1.0), null, null, null, null, null)));
        SortedMap<Long, Cell> cells = BothMethodsSummary.osuCells(c);
        assertEquals(List.of(65536L, 131072L), List.copyOf(cells.keySet()));
        assertEquals(new Cell("adapt", 0.5, 1.2), cells.get(65536L));
        assertEquals("adapt", cells.get(131072L).best());
        assertTrue(Double.isNaN(cells.get(131072L).floor()));
    }

    @Test
    void probeCellsTakeTheFastestOpenMpiConfigurationAndItsRunsFloor() {
        ProbeReport.Run tuned = new ProbeReport.Run(
                "tuned",
                List.of("mpi", "auto", "mpi"),
                new long[] {65536, 131072},
                new double[][] {{50, 100}, {100, 50}, {55, 100}},
                null,
                "");
        ProbeReport.Run adapt = new ProbeReport.Run(
                "adapt",
                List.of("mpi", "auto", "mpi"),
                new long[] {65536, 131072},
                new double[][] {{60, 80}, {30, 40}, {60, 120}},
                null,
                "");
        SortedMap<Long, Cell> cells = ProbeReport.summaryCells(List.of(tuned, adapt));
        assertEquals(new Cell("tuned", 0.5, 1.1), cells.get(65536L));
        assertEquals(new Cell("adapt", 2.0, 1.5), cells.get(131072L));
    }
}
