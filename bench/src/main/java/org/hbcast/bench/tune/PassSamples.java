package org.hbcast.bench.tune;

import java.util.List;

/**
 * The times a calibration takes of each of its points over separated passes, and the figure it
 * keeps: the median pass. A slow spell of a shared, oversubscribed machine lasts seconds; passes
 * over all sizes are further apart than that, so one spell cannot set a point's figure, while the
 * figure stays what a broadcast meets most of the time (the fastest pass would be an exception of
 * its own: a point measured only in a quiet moment). Points that are compared with one another can
 * instead be priced by their ratios to each other within each pass ({@link #figures(List)}).
 */
final class PassSamples {
    /** Passes from which a grouped point's worst pass is left out ({@link #figures(List)}). */
    static final int TRIMMED_FROM = 4;

    private final double[][] samples;

    /** Room for {@code points} points of {@code passes} passes each. */
    PassSamples(int points, int passes) {
        if (points < 0 || passes < 1) {
            throw new IllegalArgumentException("need points >= 0 and passes >= 1, got " + points + ", " + passes);
        }
        samples = new double[points][passes];
    }

    void add(int point, int pass, double seconds) {
        samples[point][pass] = seconds;
    }

    /** The point's median pass. */
    double figure(int point) {
        return BcastClock.median(samples[point]);
    }

    /** Every point's figure. */
    double[] figures() {
        double[] f = new double[samples.length];
        for (int i = 0; i < f.length; i++) {
            f[i] = figure(i);
        }
        return f;
    }

    /**
     * Every point's figure, where the points of each of {@code groups} (point indices, disjoint) are
     * priced against one another pass by pass: a point's figure is its mean ratio over the passes
     * to the fastest point of its group in the same pass, leaving out its worst pass when there are
     * at least {@value #TRIMMED_FROM}, times the median of those fastest times. An oversubscribed
     * machine has spells of seconds in which broadcasts run two to three times slower, and they do
     * not slow every plan alike: with 4 ranks on 2 cores, 4 chunks of 32 KiB beat one of 128 KiB by 2.8 times in a fast
     * spell and tied it in a slow one. Points measured side by side in a pass met the same spell, so
     * a ratio is a fair comparison; the mean weighs every kind of spell the calibration met by how
     * often it met it, as the selector check meets them. The worst pass is left out because a spell
     * that begins halfway through a group makes the points timed before it look 2-3 times dearer: a
     * worst ratio over 9 passes was decided by such passes.
     */
    double[] figures(List<int[]> groups) {
        double[] f = figures();
        int passes = passes();
        double[][] ratios = ratios(groups);
        for (int[] group : groups) {
            double level = level(group);
            for (int point : group) {
                double worst = 0;
                double sum = 0;
                for (double r : ratios[point]) {
                    worst = Math.max(worst, r);
                    sum += r;
                }
                f[point] = level * (passes >= TRIMMED_FROM ? (sum - worst) / (passes - 1) : sum / passes);
            }
        }
        return f;
    }

    /**
     * Every point's figure in each pass alone, {@code [pass][point]}: for the points of {@code groups}
     * its ratio in that pass to the fastest point of its group, times the median of those fastest
     * times (as {@link #figures(List)}, one pass at a time); for the others the pass's time. The
     * level is the same in every pass, so a pass's figures differ from another's only where the
     * plans of a group ranked differently, not where the whole pass met a slower spell.
     */
    double[][] passFigures(List<int[]> groups) {
        int passes = passes();
        double[][] f = new double[passes][samples.length];
        for (int pass = 0; pass < passes; pass++) {
            for (int point = 0; point < samples.length; point++) {
                f[pass][point] = samples[point][pass];
            }
        }
        double[][] ratios = ratios(groups);
        for (int[] group : groups) {
            double level = level(group);
            for (int point : group) {
                for (int pass = 0; pass < passes; pass++) {
                    f[pass][point] = level * ratios[point][pass];
                }
            }
        }
        return f;
    }

    private int passes() {
        return samples.length == 0 ? 0 : samples[0].length;
    }

    /** The fastest time of {@code group} in each pass. */
    private double[] fastest(int[] group) {
        double[] fastest = new double[passes()];
        for (int pass = 0; pass < fastest.length; pass++) {
            fastest[pass] = Double.POSITIVE_INFINITY;
            for (int point : group) {
                fastest[pass] = Math.min(fastest[pass], samples[point][pass]);
            }
        }
        return fastest;
    }

    /** The median over the passes of the fastest time of {@code group}. */
    private double level(int[] group) {
        return BcastClock.median(fastest(group));
    }

    /** {@code [point][pass]}: each grouped point's time over its group's fastest in the same pass (null for the others). */
    private double[][] ratios(List<int[]> groups) {
        double[][] ratios = new double[samples.length][];
        for (int[] group : groups) {
            double[] fastest = fastest(group);
            for (int point : group) {
                ratios[point] = new double[fastest.length];
                for (int pass = 0; pass < fastest.length; pass++) {
                    ratios[point][pass] = samples[point][pass] / fastest[pass];
                }
            }
        }
        return ratios;
    }
}
