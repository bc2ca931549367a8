package org.hbcast.bench.tune;

/**
 * The times a calibration takes of each of its points over separated passes, and the figure it
 * keeps: the median pass. A slow spell of a shared, oversubscribed machine lasts seconds; passes
 * over all sizes are further apart than that, so one spell cannot set a point's figure, while the
 * figure stays what a broadcast meets most of the time (the fastest pass would be an exception of
 * its own: a point measured only in a quiet moment). The calibration's curves, whose rivals the
 * model weighs against each other, keep their fastest run instead ({@link Calibrate}).
 */
final class PassSamples {
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
}
