package org.hbcast.plan;

import java.util.Locale;

/**
 * How a hierarchical broadcast moves chunks inside a node; {@link #AUTO} lets the selector choose per
 * message size from the cost model or the tuning table.
 */
public enum IntraNode {
    /** The selector picks the ring or the fan-out per message size. */
    AUTO,
    /** The pipelined ring: each chunk hops rank to rank through the next rank's slots, 2(n-1) copies per chunk. */
    RING,
    /**
     * One node-wide shared segment: the node's first rank copies each chunk in once and every other rank
     * copies it out, n copies per chunk, the readers in parallel.
     */
    FANOUT;

    /** Parses {@code auto|ring|fanout}, case-insensitively; {@code name} is the setting named in the error. */
    public static IntraNode parse(String name, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        for (IntraNode i : values()) {
            if (i.toString().equals(t)) {
                return i;
            }
        }
        throw new IllegalArgumentException(name + "='" + text + "' must be auto, ring or fanout");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
