package org.hbcast.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The performance goals of the project checked against one view of a comparison: large messages
 * (1 MiB to 64 MiB) auto at least 1.5x faster than the best native algorithm; small ones (up to
 * 64 KiB) at most 1.1x slower; on one node the large-message path at 60% of the copy bound or more;
 * across hosts with a measured link bound, auto at 90% of it or more from 4 MiB.
 *
 * <p>No complete broadcast can beat a physical bound: a figure above one (which OSU's method, timing
 * back-to-back calls that overlap, can show) is overlapped throughput. Such a figure is named but never
 * counted: the bound's goal is judged on the other sizes, and is "not measured" where none is left.
 */
public final class Goals {
    static final double LARGE_SPEEDUP = 1.5;
    static final double SMALL_SLOWDOWN = 1.1;
    static final double COPY_BOUND = 0.6;
    static final double LINK_BOUND = 0.9;
    static final long LINK_BOUND_FROM = 4 * Sizes.MIB;

    /**
     * One goal.
     *
     * @param goal     what is asked
     * @param measured what the comparison shows (worst case and where)
     * @param met      whether it is met, or null where the comparison has no data for it
     */
    public record Goal(String goal, String measured, Boolean met) {}

    /**
     * One size of a view: best native's time over auto's (null: not measured), auto's fraction of the
     * copy bound and of the link bound (null: not measured).
     */
    public record Point(long size, Double ratio, Double copyFraction, Double linkFraction) {}

    private Goals() {}

    public static List<Goal> of(Comparison c) {
        return of(c, null);
    }

    /** The OSU-method view: as {@link #of(Comparison)}, with the goal on the link bound where {@code link} is measured. */
    public static List<Goal> of(Comparison c, LinkBound link) {
        List<Point> points = new ArrayList<>();
        for (Comparison.Row row : c.rows()) {
            Double auto = row.latencyUs().get(Comparison.AUTO);
            points.add(new Point(
                    row.size(),
                    row.ratio(),
                    row.copyBoundFraction(),
                    link == null || auto == null ? null : link.fraction(row.size(), auto)));
        }
        return of(points, c.singleNode(), link != null);
    }

    /**
     * The goals over {@code points}.
     *
     * @param copyGoal whether the copy bound's goal applies (one node)
     * @param linkGoal whether the link bound's goal applies (a link bound was measured)
     */
    public static List<Goal> of(List<Point> points, boolean copyGoal, boolean linkGoal) {
        List<Goal> goals = new ArrayList<>();
        Point worstLarge = null;
        Point worstSmall = null;
        for (Point p : points) {
            if (p.ratio() != null
                    && p.size() >= Sizes.MIB
                    && p.size() <= 64 * Sizes.MIB
                    && (worstLarge == null || p.ratio() < worstLarge.ratio())) {
                worstLarge = p;
            }
            if (p.ratio() != null
                    && p.size() <= 64 * Sizes.KIB
                    && (worstSmall == null || p.ratio() < worstSmall.ratio())) {
                worstSmall = p;
            }
        }
        String large = "1 MiB-64 MiB: auto >= 1.5x faster than best native";
        goals.add(
                worstLarge == null
                        ? new Goal(large, "no data", null)
                        : new Goal(
                                large,
                                String.format(
                                        Locale.ROOT,
                                        "worst %.2fx at %s",
                                        worstLarge.ratio(),
                                        Sizes.format(worstLarge.size())),
                                worstLarge.ratio() >= LARGE_SPEEDUP));
        String small = "<= 64 KiB: auto at most 1.1x slower than best native";
        goals.add(
                worstSmall == null
                        ? new Goal(small, "no data", null)
                        : new Goal(
                                small,
                                String.format(
                                        Locale.ROOT,
                                        "worst %.2fx %s at %s",
                                        slowdown(worstSmall.ratio()),
                                        worstSmall.ratio() <= 1 ? "slower" : "faster (never slower)",
                                        Sizes.format(worstSmall.size())),
                                1 / worstSmall.ratio() <= SMALL_SLOWDOWN));
        if (copyGoal) {
            goals.add(boundGoal(
                    ">= 1 MiB on one node: auto >= 60% of the copy bound",
                    "copy",
                    points,
                    Sizes.MIB,
                    p -> p.copyFraction() == null ? Double.NaN : p.copyFraction(),
                    COPY_BOUND));
        }
        if (linkGoal) {
            goals.add(boundGoal(
                    ">= " + Sizes.format(LINK_BOUND_FROM) + " across hosts: auto >= 90% of the link bound",
                    "link",
                    points,
                    LINK_BOUND_FROM,
                    p -> p.linkFraction() == null ? Double.NaN : p.linkFraction(),
                    LINK_BOUND));
        }
        return goals;
    }

    /** A goal on a bound: the worst fraction from {@code from} among those a broadcast can reach (at most 1). */
    private static Goal boundGoal(
            String goal, String bound, List<Point> points, long from, ToDoubleFunction<Point> fraction, double wanted) {
        Point worst = null;
        List<String> above = new ArrayList<>();
        for (Point p : points) {
            double f = fraction.applyAsDouble(p);
            if (p.size() < from || Double.isNaN(f)) {
                continue;
            }
            if (f > 1) {
                above.add(String.format(Locale.ROOT, "%.0f%% at %s", 100 * f, Sizes.format(p.size())));
            } else if (worst == null || f < fraction.applyAsDouble(worst)) {
                worst = p;
            }
        }
        String overlapped = above.isEmpty()
                ? ""
                : "; above the " + bound + " bound, so overlapped throughput of back-to-back calls and not counted: "
                        + String.join(", ", above);
        if (worst == null) {
            return new Goal(
                    goal,
                    (above.isEmpty()
                                    ? "no data (needs sizes >= " + Sizes.format(from) + ")"
                                    : "no figure within the bound")
                            + overlapped,
                    null);
        }
        double f = fraction.applyAsDouble(worst);
        return new Goal(
                goal,
                String.format(Locale.ROOT, "worst %.0f%% at %s", 100 * f, Sizes.format(worst.size())) + overlapped,
                f >= wanted);
    }

    /** How many times slower auto is than the best native (or faster, when the ratio is above 1). */
    private static double slowdown(double ratio) {
        return ratio <= 1 ? 1 / ratio : ratio;
    }

    /** The goal lines as markdown, under {@code title}. */
    static String render(String title, List<Goal> goals) {
        StringBuilder md = new StringBuilder("\n").append(title).append(":\n\n");
        for (Goal g : goals) {
            md.append("- ")
                    .append(g.goal())
                    .append(": ")
                    .append(g.measured())
                    .append(" -> ")
                    .append(g.met() == null ? "not measured" : g.met() ? "met" : "NOT met")
                    .append('\n');
        }
        return md.toString();
    }
}
