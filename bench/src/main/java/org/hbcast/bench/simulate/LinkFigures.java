package org.hbcast.bench.simulate;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses link rates ({@code 1gbit}, {@code 100gbit}, {@code 400mbit}, {@code 12.5GB}) and latencies ({@code 1.5us}, {@code 30us}, {@code 1ms}). */
public final class LinkFigures {
    private LinkFigures() {}

    private static final Pattern RATE =
            Pattern.compile("([0-9]*\\.?[0-9]+)\\s*([kmgt]?)(bit|bps|b|byte|bytes)?(/s)?", Pattern.CASE_INSENSITIVE);
    private static final Pattern TIME = Pattern.compile("([0-9]*\\.?[0-9]+)\\s*(ns|us|ms|s)", Pattern.CASE_INSENSITIVE);

    /** Bytes per second: {@code bit} and {@code bps} are bits (as tc writes them), {@code B} bytes. */
    public static double bytesPerSecond(String text) {
        Matcher m = RATE.matcher(text.strip());
        if (!m.matches() || m.group(3) == null) {
            throw new IllegalArgumentException(
                    "'" + text + "' is not a rate such as 1gbit, 100gbit (bits/s) or 12.5GB (bytes/s)");
        }
        double value = Double.parseDouble(m.group(1))
                * switch (m.group(2).toLowerCase(Locale.ROOT)) {
                    case "k" -> 1e3;
                    case "m" -> 1e6;
                    case "g" -> 1e9;
                    case "t" -> 1e12;
                    default -> 1;
                };
        String unit = m.group(3);
        boolean bits = unit.equalsIgnoreCase("bit") || unit.equalsIgnoreCase("bps") || unit.equals("b");
        double rate = bits ? value / 8 : value;
        if (!(rate > 0)) {
            throw new IllegalArgumentException("a rate must be positive, got '" + text + "'");
        }
        return rate;
    }

    /** Seconds from {@code 1.5us}, {@code 30us}, {@code 2ms}, {@code 0s}. */
    public static double seconds(String text) {
        Matcher m = TIME.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a time such as 1.5us, 30us or 1ms");
        }
        double value = Double.parseDouble(m.group(1));
        return value
                * switch (m.group(2).toLowerCase(Locale.ROOT)) {
                    case "ns" -> 1e-9;
                    case "us" -> 1e-6;
                    case "ms" -> 1e-3;
                    default -> 1;
                };
    }
}
