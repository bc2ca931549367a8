package org.hbcast.bench.simulate;

import java.util.Locale;

/** Message sizes as the tables write them: 1K, 64K, 16M. */
final class Sizes {
    private Sizes() {}

    static String label(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + "M";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return (bytes >> 10) + "K";
        }
        return String.format(Locale.ROOT, "%d", bytes);
    }
}
