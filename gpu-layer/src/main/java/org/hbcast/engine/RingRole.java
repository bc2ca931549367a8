package org.hbcast.engine;

/** What one rank does in one broadcast along the node's chain. */
public enum RingRole {
    /** The only rank of its node: nothing moves inside the node. */
    ALONE,
    /** Has the data (the root, or the leader that gets it from the inter-node tree) and only sends. */
    FIRST,
    /** Receives every chunk from the left and forwards it to the right. */
    MIDDLE,
    /** Only receives: the chain ends here. */
    LAST;

    /**
     * The role of ring position {@code position} when the chain of {@code ringSize} ranks starts at
     * position {@code start} and runs rightwards (increasing positions, wrapping around).
     */
    public static RingRole of(final int ringSize, final int position, final int start) {
        if (ringSize <= 0) {
            throw new IllegalArgumentException("ring size must be positive: " + ringSize);
        }
        if (position < 0 || position >= ringSize) {
            throw new IllegalArgumentException("position " + position + " outside ring of " + ringSize);
        }
        if (start < 0 || start >= ringSize) {
            throw new IllegalArgumentException("start " + start + " outside ring of " + ringSize);
        }
        if (ringSize == 1) {
            return ALONE;
        }
        if (position == start) {
            return FIRST;
        }
        return (position + 1) % ringSize == start ? LAST : MIDDLE;
    }

    /** True for roles that take chunks from the left neighbour. */
    public boolean receives() {
        return this == MIDDLE || this == LAST;
    }

    /** True for roles that put chunks into the right neighbour. */
    public boolean sends() {
        return this == FIRST || this == MIDDLE;
    }
}
