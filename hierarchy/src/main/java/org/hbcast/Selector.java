package org.hbcast;

import org.hbcast.mpi.NodeLayout;

/**
 * Chooses the plan of a call from the message size and the layout. For now a size threshold:
 * small messages go to Open MPI's own broadcast (its latency path is hard to beat from Java),
 * large ones to the pipelined hierarchy (or the flat tree when every node holds one rank).
 * Explicit options win over the choice. Pure: the same inputs give the same plan on every rank.
 * The few possible plans are made once, so choosing allocates nothing.
 */
final class Selector {
    /** Below this many bytes {@code auto} delegates to native. */
    static final long SMALL_MESSAGE_BYTES = 64 << 10;
    static final int DEFAULT_CHUNK_BYTES = 256 << 10;
    static final int DEFAULT_RADIX = 2;

    private final Plan small;
    private final Plan large;

    Selector(BcastOptions options, NodeLayout layout, int maxChunkBytes) {
        int chunk = Math.min(options.chunkBytes() != 0 ? options.chunkBytes() : DEFAULT_CHUNK_BYTES, maxChunkBytes);
        int radix = options.radix() != 0 ? options.radix() : DEFAULT_RADIX;
        if (options.algorithm() != Algorithm.AUTO) {
            small = new Plan(options.algorithm(), chunk, radix, "set by options");
            large = small;
        } else {
            small = new Plan(Algorithm.NATIVE, chunk, radix, "auto: below " + SMALL_MESSAGE_BYTES + " B");
            large = layout.maxNodeSize() == 1
                    ? new Plan(Algorithm.KNOMIAL, chunk, radix, "auto: every node holds one rank, so there is no ring")
                    : new Plan(Algorithm.HIERARCHICAL, chunk, radix, "auto: at least " + SMALL_MESSAGE_BYTES + " B");
        }
    }

    Plan plan(long bytes) {
        return bytes < SMALL_MESSAGE_BYTES ? small : large;
    }
}
