package org.hbcast.bench.report;

/** Message sizes for people: 1 B, 512 B, 64 KiB, 16 MiB (exact binary units, bytes otherwise). */
public final class Sizes {
    public static final long KIB = 1L << 10;
    public static final long MIB = 1L << 20;

    private Sizes() {}

    public static String format(long bytes) {
        if (bytes >= MIB && bytes % MIB == 0) {
            return bytes / MIB + " MiB";
        }
        if (bytes >= KIB && bytes % KIB == 0) {
            return bytes / KIB + " KiB";
        }
        return bytes + " B";
    }
}
