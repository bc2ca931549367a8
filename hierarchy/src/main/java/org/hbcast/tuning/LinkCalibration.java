package org.hbcast.tuning;

import java.util.Objects;

/**
 * The start-up time and bandwidth of one {@link LinkKind}: one transfer of {@code c} bytes takes
 * {@code startupSeconds + c / bytesPerSecond}.
 *
 * @param source where the figures come from: "measured" by the calibration, or "built-in"
 */
public record LinkCalibration(LinkKind kind, double startupSeconds, double bytesPerSecond, String source) {
    public LinkCalibration {
        Objects.requireNonNull(kind, "kind");
        if (!(startupSeconds >= 0 && startupSeconds < 1)) {
            throw new IllegalArgumentException(kind.id() + ": start-up time " + startupSeconds
                    + " s is not in [0, 1) s");
        }
        if (!(bytesPerSecond >= 1e3 && bytesPerSecond < 1e14)) {
            throw new IllegalArgumentException(kind.id() + ": bandwidth " + bytesPerSecond
                    + " B/s is not in [1e3, 1e14) B/s");
        }
        source = source == null ? "measured" : source;
    }

    /** Seconds to move {@code bytes} over this link once. */
    public double seconds(double bytes) {
        return startupSeconds + bytes / bytesPerSecond;
    }
}
