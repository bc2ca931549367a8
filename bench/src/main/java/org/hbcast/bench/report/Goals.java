package org.hbcast.bench.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The performance goals of the project checked against a {@link Comparison}: large messages
 * (1 MiB to 64 MiB) auto at least 1.5x faster than the best native algorithm; small ones (up to
 * 64 KiB) at most 1.1x slower; on one node the large-message path at 60% of the copy bound or more;
 * across hosts with a measured link bound, auto at 90% of it or more from 4 MiB.
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

    private Goals() {}

    public static List<Goal> of(Comparison c) {
        return of(c, null);
    }

    /** As {@link #of(Comparison)}, with the goal on the link bound where {@code link} is measured. */
    public static List<Goal> of(Comparison c, LinkBound link) {
        List<Goal> goals = new ArrayList<>();
        Comparison.Row worstLarge = null;
        Comparison.Row worstSmall = null;
        Comparison.Row worstCopy = null;
        for (Comparison.Row row : c.rows()) {
            if (row.ratio() != null
                    && row.size() >= Sizes.MIB
                    && row.size() <= 64 * Sizes.MIB
                    && (worstLarge == null || row.ratio() < worstLarge.ratio())) {
                worstLarge = row;
            }
            if (row.ratio() != null
                    && row.size() <= 64 * Sizes.KIB
                    && (worstSmall == null || row.ratio() < worstSmall.ratio())) {
                worstSmall = row;
            }
            if (row.copyBoundFraction() != null
                    && row.size() >= Sizes.MIB
                    && (worstCopy == null || row.copyBoundFraction() < worstCopy.copyBoundFraction())) {
                worstCopy = row;
            }
        }
        goals.add(
                worstLarge == null
                        ? new Goal("1 MiB-64 MiB: auto >= 1.5x faster than best native", "no data", null)
                        : new Goal(
                                "1 MiB-64 MiB: auto >= 1.5x faster than best native",
                                String.format(
                                        Locale.ROOT,
                                        "worst %.2fx at %s",
                                        worstLarge.ratio(),
                                        Sizes.format(worstLarge.size())),
                                worstLarge.ratio() >= LARGE_SPEEDUP));
        goals.add(
                worstSmall == null
                        ? new Goal("<= 64 KiB: auto at most 1.1x slower than best native", "no data", null)
                        : new Goal(
                                "<= 64 KiB: auto at most 1.1x slower than best native",
                                String.format(
                                        Locale.ROOT,
                                        "worst %.2fx %s at %s",
                                        slowdown(worstSmall),
                                        worstSmall.ratio() <= 1 ? "slower" : "faster (never slower)",
                                        Sizes.format(worstSmall.size())),
                                1 / worstSmall.ratio() <= SMALL_SLOWDOWN));
        if (c.singleNode()) {
            goals.add(
                    worstCopy == null
                            ? new Goal(
                                    ">= 1 MiB on one node: auto >= 60% of the copy bound",
                                    "no data (needs sizes >= 1 MiB and the hbcast run's memcpy column)", null)
                            : new Goal(
                                    ">= 1 MiB on one node: auto >= 60% of the copy bound",
                                    String.format(
                                            Locale.ROOT,
                                            "worst %.0f%% at %s",
                                            100 * worstCopy.copyBoundFraction(),
                                            Sizes.format(worstCopy.size())),
                                    worstCopy.copyBoundFraction() >= COPY_BOUND));
        }
        if (link != null) {
            goals.add(linkGoal(c, link));
        }
        return goals;
    }

    private static Goal linkGoal(Comparison c, LinkBound link) {
        String goal = ">= " + Sizes.format(LINK_BOUND_FROM) + " across hosts: auto >= 90% of the link bound";
        Comparison.Row worst = null;
        for (Comparison.Row row : c.rows()) {
            Double auto = row.latencyUs().get(Comparison.AUTO);
            if (auto != null
                    && row.size() >= LINK_BOUND_FROM
                    && (worst == null
                            || link.fraction(row.size(), auto)
                                    < link.fraction(
                                            worst.size(), worst.latencyUs().get(Comparison.AUTO)))) {
                worst = row;
            }
        }
        if (worst == null) {
            return new Goal(goal, "no data (needs sizes >= " + Sizes.format(LINK_BOUND_FROM) + ")", null);
        }
        double fraction = link.fraction(worst.size(), worst.latencyUs().get(Comparison.AUTO));
        return new Goal(
                goal,
                String.format(Locale.ROOT, "worst %.0f%% at %s", 100 * fraction, Sizes.format(worst.size())),
                fraction >= LINK_BOUND);
    }

    /** How many times slower auto is than the best native (or faster, when the ratio is above 1). */
    private static double slowdown(Comparison.Row row) {
        return row.ratio() <= 1 ? 1 / row.ratio() : row.ratio();
    }
}
