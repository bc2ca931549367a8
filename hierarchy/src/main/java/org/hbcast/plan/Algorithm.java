package org.hbcast.plan;

import java.util.Locale;

/** How a broadcast moves data; {@link #AUTO} lets the selector choose per call. */
public enum Algorithm {
    /** The selector picks one of the others from the message size and the layout. */
    AUTO,
    /** Delegates to {@code Intracomm.bcast}: the baseline every benchmark compares against. */
    NATIVE,
    /** A flat segmented k-nomial tree over all ranks, ignoring nodes. */
    KNOMIAL,
    /** A k-nomial tree among node leaders and a pipelined ring inside each node, both over the same chunks. */
    HIERARCHICAL;

    /** Parses {@code auto|native|knomial|hierarchical}, case-insensitively. */
    public static Algorithm parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        for (Algorithm a : values()) {
            if (a.name().toLowerCase(Locale.ROOT).equals(t)) {
                return a;
            }
        }
        throw new IllegalArgumentException(
                "HBCAST_ALGORITHM='" + text + "' is not one of auto, native, knomial, hierarchical");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
