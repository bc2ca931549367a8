package org.hbcast.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Byte counts as people write them: {@code 4096}, {@code 64K}, {@code 16M}, {@code 1G} (binary units). */
public final class ByteSizes {
    private ByteSizes() {}

    public static long parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        long unit = 1;
        if (!t.isEmpty()) {
            switch (t.charAt(t.length() - 1)) {
                case 'K' -> unit = 1L << 10;
                case 'M' -> unit = 1L << 20;
                case 'G' -> unit = 1L << 30;
                default -> unit = 1;
            }
        }
        String digits = unit == 1 ? t : t.substring(0, t.length() - 1);
        try {
            long v = Long.parseLong(digits.trim());
            if (v < 0) {
                throw new NumberFormatException();
            }
            return Math.multiplyExact(v, unit);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("'" + text + "' is not a byte count like 4096, 64K, 16M or 1G");
        }
    }

    /** The powers of two from MIN to MAX of "MIN:MAX" (or the one size of "SIZE"). */
    public static List<Long> powersOfTwo(String range) {
        String[] parts = range.split(":");
        if (parts.length > 2) {
            throw new IllegalArgumentException("'" + range + "' is not MIN:MAX or SIZE");
        }
        long min = parse(parts[0]);
        long max = parse(parts[parts.length - 1]);
        if (min < 1 || max < min) {
            throw new IllegalArgumentException("'" + range + "' needs 1 <= MIN <= MAX");
        }
        List<Long> sizes = new ArrayList<>();
        for (long s = min; s <= max; s *= 2) {
            sizes.add(s);
        }
        return sizes;
    }
}
