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
        int passes = samples.length == 0 ? 0 : samples[0].length;
        for (int[] group : groups) {
            double[] fastest = new double[passes];
            for (int pass = 0; pass < passes; pass++) {
                fastest[pass] = Double.POSITIVE_INFINITY;
                for (int point : group) {
                    fastest[pass] = Math.min(fastest[pass], samples[point][pass]);
                }
            }
            double level = BcastClock.median(fastest);
            for (int point : group) {
                double worst = 0;
                double sum = 0;
                for (int pass = 0; pass < passes; pass++) {
                    double r = samples[point][pass] / fastest[pass];
                    worst = Math.max(worst, r);
                    sum += r;
                }
                f[point] = level * (passes >= TRIMMED_FROM ? (sum - worst) / (passes - 1) : sum / passes);
            }
        }
        return f;
    }
}
