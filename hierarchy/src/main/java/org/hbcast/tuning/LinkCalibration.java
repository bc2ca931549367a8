package org.hbcast.tuning;

import java.util.List;
import java.util.Objects;

/**
 * The cost of one transfer over a {@link LinkKind}. From a measured curve of one-way transfer times
 * by size when the calibration has one (a ping-pong at every power of two): it carries what a
 * straight line cannot, such as Open MPI switching from eager to rendezvous sends above its eager
 * limit. Otherwise, and for display, the straight line {@code startupSeconds + c / bytesPerSecond}
 * fitted from a small and a large transfer.
 *
 * <p>A pipeline does not pay a whole transfer per segment: back-to-back sends overlap their
 * latencies, and what a segment adds is the link's gap (LogGP's {@code G}). {@link #gapSeconds} is
 * that, from a measured curve of streams when there is one, else the transfer time.
 *
 * @param source where the figures come from: "measured" by the calibration, or "built-in"
 * @param transfers one-way seconds by size, ascending sizes; empty when only the line was measured
 * @param gaps seconds each further message adds in a stream of back-to-back messages, by size
 *        (ascending sizes); empty when not measured
 */
public record LinkCalibration(
        LinkKind kind,
        double startupSeconds,
        double bytesPerSecond,
        String source,
        List<TimedSize> transfers,
        List<TimedSize> gaps) {
    /** The {@link #source} of the figures a library without a calibration assumes. */
    public static final String BUILT_IN = "built-in";
    /** The {@link #source} of the network's figures when the leaders measured them at create. */
    public static final String MEASURED_AT_CREATE = "measured at create";

    public LinkCalibration {
        Objects.requireNonNull(kind, "kind");
        if (!plausibleStartup(startupSeconds)) {
            throw new IllegalArgumentException(
                    kind.id() + ": start-up time " + startupSeconds + " s is not in [0, 1) s");
        }
        if (!plausibleBandwidth(bytesPerSecond)) {
            throw new IllegalArgumentException(
                    kind.id() + ": bandwidth " + bytesPerSecond + " B/s is not in [1e3, 1e14) B/s");
        }
        source = source == null ? "measured" : source;
        transfers = checked(kind, "transfer", transfers);
        gaps = checked(kind, "gap", gaps);
    }

    /** A link known by its straight line only. */
    public LinkCalibration(LinkKind kind, double startupSeconds, double bytesPerSecond, String source) {
        this(kind, startupSeconds, bytesPerSecond, source, List.of(), List.of());
    }

    private static List<TimedSize> checked(LinkKind kind, String what, List<TimedSize> times) {
        List<TimedSize> list = times == null ? List.of() : List.copyOf(times);
        long previous = 0;
        for (TimedSize t : list) {
            if (t.bytes() <= previous || !(t.seconds() > 0 && t.seconds() < 3600)) {
                throw new IllegalArgumentException(kind.id() + ": " + what + " times need ascending positive sizes and"
                        + " positive times, got " + t.bytes() + " B in " + t.seconds() + " s");
            }
            previous = t.bytes();
        }
        return list;
    }

    /** Seconds to move {@code bytes} over this link once (see {@link Interpolation#logLog} for the curve). */
    public double seconds(double bytes) {
        if (transfers.isEmpty()) {
            return startupSeconds + bytes / bytesPerSecond;
        }
        return Interpolation.logLog(transfers, (long) Math.ceil(bytes));
    }

    /** Seconds one more message of {@code bytes} adds to a stream of them: the gap curve, else {@link #seconds}. */
    public double gapSeconds(double bytes) {
        return gaps.isEmpty() ? seconds(bytes) : Interpolation.logLog(gaps, (long) Math.ceil(bytes));
    }

    /** Whether a start-up time is one a link can have: in [0, 1) s. */
    public static boolean plausibleStartup(double seconds) {
        return seconds >= 0 && seconds < 1;
    }

    /** Whether a bandwidth is one a link can have: in [1e3, 1e14) B/s. */
    public static boolean plausibleBandwidth(double bytesPerSecond) {
        return bytesPerSecond >= 1e3 && bytesPerSecond < 1e14;
    }

    /**
     * Whether these are the figures a run has without a calibration: built-in, or a start-up and a
     * bandwidth measured at create. Neither knows how the cost steps with the message's size.
     */
    public boolean uncalibrated() {
        return builtIn() || MEASURED_AT_CREATE.equals(source);
    }

    /** Whether these are the built-in figures, not measured ones. */
    public boolean builtIn() {
        return BUILT_IN.equals(source);
    }
}
