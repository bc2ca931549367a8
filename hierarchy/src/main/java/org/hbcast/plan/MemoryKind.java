package org.hbcast.plan;

import java.util.Locale;

/** Where a broadcast's buffer lives: host memory, or GPU memory (staged through the host between nodes). */
public enum MemoryKind {
    HOST,
    DEVICE;

    /** Parses {@code host|device}, case-insensitively. */
    public static MemoryKind parse(String text) {
        return switch (text.trim().toLowerCase(Locale.ROOT)) {
            case "host" -> HOST;
            case "device", "cuda", "gpu" -> DEVICE;
            default -> throw new IllegalArgumentException("memory kind '" + text + "' is not host or device");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
