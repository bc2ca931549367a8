package org.hbcast.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A figure above a physical bound is overlapped throughput: named, never counted as met. */
class GoalsTest {
    private static final long MIB = Sizes.MIB;

    @Test
    void aLinkFractionAboveTheBoundIsNamedAndNotCounted() {
        List<Goals.Goal> goals = Goals.of(
                List.of(new Goals.Point(4 * MIB, 2.0, null, 1.28), new Goals.Point(8 * MIB, 2.0, null, 0.85)),
                false,
                true);
        Goals.Goal link = goals.get(2);
        assertFalse(link.met(), "judged on 8 MiB's 85% alone");
        assertTrue(link.measured().startsWith("worst 85% at 8 MiB"), link.measured());
        assertTrue(
                link.measured().contains("overlapped throughput of back-to-back calls and not counted: 128% at 4 MiB"),
                link.measured());
    }

    @Test
    void onlyFiguresAboveTheBoundMeanNotMeasured() {
        List<Goals.Goal> goals = Goals.of(List.of(new Goals.Point(4 * MIB, 2.0, 1.4, null)), true, false);
        Goals.Goal copy = goals.get(2);
        assertNull(copy.met());
        assertTrue(copy.measured().startsWith("no figure within the bound"), copy.measured());
    }

    @Test
    void withinTheBoundTheWorstDecides() {
        List<Goals.Goal> goals = Goals.of(
                List.of(new Goals.Point(4 * MIB, 2.0, null, 0.93), new Goals.Point(16 * MIB, 2.0, null, 0.99)),
                false,
                true);
        assertTrue(goals.get(2).met());
        assertEquals("worst 93% at 4 MiB", goals.get(2).measured());
    }

    @Test
    void aCellAboveTheBoundSaysOverlapped() {
        assertEquals("128% (overlapped)", LinkBound.percent(1.28));
        assertEquals("99%", LinkBound.percent(0.99));
    }

    @Test
    void theHeadlineNamesTheRangeAndTheGoalsMet() {
        List<Goals.Point> points =
                List.of(new Goals.Point(1024, 0.8, null, null), new Goals.Point(4 * MIB, 2.5, null, null));
        String headline = ProbeReport.headline(points, Goals.of(points, false, false));
        assertTrue(headline.contains("from 0.80x at 1 KiB to 2.50x at 4 MiB"), headline);
        assertTrue(headline.contains("Goals met: 1 of 2 measured."), headline);
    }
}
