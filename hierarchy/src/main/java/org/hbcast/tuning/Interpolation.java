package org.hbcast.tuning;

import java.util.List;

/**
 * Interpolation between measured message sizes on a log2 scale: sizes 1 MiB and 4 MiB bracket
 * 2 MiB at the middle. Outside the measured range positions clamp to the nearest end.
 */
public final class Interpolation {
    private Interpolation() {}

    /**
     * Where {@code bytes} falls among {@code sizes}: between {@code lower} and {@code upper}
     * (equal at a measured size or outside the range) at {@code fraction} of the way on a log scale.
     */
    public record Position(int lower, int upper, double fraction) {
        /** The measured size nearer on the log scale (the lower one at exactly half way). */
        public int nearest() {
            return fraction <= 0.5 ? lower : upper;
        }

        public boolean exact() {
            return lower == upper;
        }
    }

    /** @param sizes strictly ascending positive sizes, at least one */
    public static Position locate(long[] sizes, long bytes) {
        if (sizes.length == 0) {
            throw new IllegalArgumentException("no sizes to interpolate between");
        }
        if (bytes <= sizes[0]) {
            return new Position(0, 0, 0);
        }
        int last = sizes.length - 1;
        if (bytes >= sizes[last]) {
            return new Position(last, last, 0);
        }
        int hi = 1;
        while (sizes[hi] < bytes) {
            hi++;
        }
        if (sizes[hi] == bytes) {
            return new Position(hi, hi, 0);
        }
        double f = (log2(bytes) - log2(sizes[hi - 1])) / (log2(sizes[hi]) - log2(sizes[hi - 1]));
        return new Position(hi - 1, hi, f);
    }

    /** Geometric interpolation: {@code 2^((1 - t) log2 a + t log2 b)}, for positive a and b. */
    public static double geometric(double a, double b, double t) {
        return Math.pow(2, (1 - t) * log2(a) + t * log2(b));
    }

    /**
     * A time for {@code bytes} from measured times: log-log interpolation inside the range; below it
     * the smallest size's time (latency bound), above it the largest size's time scaled by size
     * (bandwidth bound).
     */
    public static double logLog(List<TimedSize> times, long bytes) {
        long[] sizes = times.stream().mapToLong(TimedSize::bytes).toArray();
        Position p = locate(sizes, bytes);
        TimedSize lo = times.get(p.lower());
        if (p.exact()) {
            return p.lower() == sizes.length - 1 && bytes > lo.bytes()
                    ? lo.seconds() * bytes / lo.bytes()
                    : lo.seconds();
        }
        return geometric(lo.seconds(), times.get(p.upper()).seconds(), p.fraction());
    }

    static double log2(double x) {
        return Math.log(x) / Math.log(2);
    }
}
