package org.hbcast.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Issue 55's "never slower, however it is measured" view: per size, auto against the best Open MPI
 * algorithm under the user-style probe and under OSU's loop, each beside its own run's A/A floor, and
 * whether the target (auto at most {@link #TARGET_SLOWDOWN} times slower) is met, met only inside the
 * floor (the gap is no larger than the same run's A/A; both figures shown), or missed.
 */
public final class BothMethodsSummary {
    /** How much slower than the best Open MPI auto may be, under either method (issue 55). */
    public static final double TARGET_SLOWDOWN = Goals.SMALL_SLOWDOWN;

    /**
     * One method at one size.
     *
     * @param best  the best Open MPI configuration's name
     * @param ratio its time over auto's (above 1: auto is faster)
     * @param floor the A/A floor of the run: the same configuration's two figures, larger over smaller
     *        (at least 1; NaN where the run has none)
     */
    public record Cell(String best, double ratio, double floor) {}

    /** What one method, or both together, shows at one size; in order of severity. */
    public enum Verdict {
        MET("met"),
        INSIDE_FLOOR("inside the floor"),
        NOT_MEASURED("not measured"),
        MISSED("missed");

        private final String text;

        Verdict(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }
    }

    private BothMethodsSummary() {}

    /**
     * The verdict of one method: met where auto is at most {@link #TARGET_SLOWDOWN} times slower;
     * inside the floor where it is slower by more but by no more than the run's A/A floor; missed
     * otherwise; not measured without a cell or a positive ratio.
     */
    public static Verdict verdict(Cell cell) {
        if (cell == null || !(cell.ratio() > 0) || Double.isInfinite(cell.ratio())) {
            return Verdict.NOT_MEASURED;
        }
        double slowdown = 1 / cell.ratio();
        if (slowdown <= TARGET_SLOWDOWN) {
            return Verdict.MET;
        }
        return slowdown <= cell.floor() ? Verdict.INSIDE_FLOOR : Verdict.MISSED;
    }

    /** Both methods together: the more severe verdict (a size is met only where both meet it). */
    public static Verdict combined(Verdict probe, Verdict osu) {
        return probe.compareTo(osu) >= 0 ? probe : osu;
    }

    /**
     * The verdict cell of the table: the combined verdict, naming the method behind it where only one
     * method is.
     */
    static String verdictText(Verdict probe, Verdict osu) {
        Verdict both = combined(probe, osu);
        if (both == Verdict.MET || probe == osu) {
            return both.text();
        }
        return both.text() + (probe == both ? " (probe)" : " (OSU)");
    }

    /**
     * The markdown table, one row per size either method measured, ascending, and a line counting
     * the verdicts.
     *
     * @param probe per size, the user-style probe's cell
     * @param osu   per size, OSU's loop's cell
     */
    public static String render(Map<Long, Cell> probe, Map<Long, Cell> osu) {
        StringBuilder md = new StringBuilder("## Both methods: never slower, however it is measured\n\n")
                .append(String.format(
                        Locale.ROOT,
                        "Per size, the best Open MPI algorithm over auto (above 1 auto is faster) under the"
                                + " user-style probe and under OSU's loop, each with its run's A/A floor. Target:"
                                + " auto at most %.1fx slower under both; a gap no larger than the same run's A/A"
                                + " floor is inside the floor (both figures shown).%n%n",
                        TARGET_SLOWDOWN))
                .append("| size | probe: best Open MPI | best / auto | its A/A | OSU's loop: best Open MPI"
                        + " | best / auto | its A/A | target |\n")
                .append("|---|---|---:|---:|---|---:|---:|---|\n");
        TreeSet<Long> sizes = new TreeSet<>(probe.keySet());
        sizes.addAll(osu.keySet());
        SortedMap<Verdict, List<Long>> counts = new TreeMap<>();
        for (long size : sizes) {
            Cell p = probe.get(size);
            Cell o = osu.get(size);
            Verdict vp = verdict(p);
            Verdict vo = verdict(o);
            counts.computeIfAbsent(combined(vp, vo), v -> new ArrayList<>()).add(size);
            md.append("| ").append(Sizes.format(size)).append(" |");
            cells(md, p);
            cells(md, o);
            md.append(' ').append(verdictText(vp, vo)).append(" |\n");
        }
        md.append('\n');
        List<String> parts = new ArrayList<>();
        counts.forEach((v, at) -> parts.add(v.text() + " at " + at.size() + (at.size() == 1 ? " size" : " sizes")
                + (v == Verdict.MET ? "" : sizes(at))));
        md.append("Target under both methods: ")
                .append(parts.isEmpty() ? "no size measured" : String.join("; ", parts))
                .append(".\n");
        return md.toString();
    }

    private static String sizes(List<Long> at) {
        return " (" + String.join(", ", at.stream().map(Sizes::format).toList()) + ")";
    }

    private static void cells(StringBuilder md, Cell c) {
        if (c == null) {
            md.append(" - | - | - |");
            return;
        }
        md.append(String.format(
                Locale.ROOT,
                " %s | %s | %s |",
                c.best(),
                Double.isNaN(c.ratio()) ? "-" : String.format(Locale.ROOT, "%.2fx", c.ratio()),
                Double.isNaN(c.floor()) ? "-" : String.format(Locale.ROOT, "%.2f", c.floor())));
    }

    /**
     * OSU's loop's cells of a merged comparison: per size its best native over auto, and as the floor
     * Open MPI's default bcast in its own launch against the same in hbcast's launch (the OSU table's
     * A/A), larger over smaller.
     */
    public static SortedMap<Long, Cell> osuCells(Comparison c) {
        SortedMap<Long, Cell> cells = new TreeMap<>();
        for (Comparison.Row row : c.rows()) {
            if (row.ratio() == null) {
                continue;
            }
            Double own = row.latencyUs().get(MarkdownReport.AA_OWN);
            Double other = row.latencyUs().get(MarkdownReport.AA_OTHER);
            double floor = own == null || other == null || own <= 0 || other <= 0
                    ? Double.NaN
                    : Math.max(own / other, other / own);
            cells.put(row.size(), new Cell(row.bestNativeName(), row.ratio(), floor));
        }
        return cells;
    }
}
