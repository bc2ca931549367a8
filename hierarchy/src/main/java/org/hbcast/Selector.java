package org.hbcast;

import org.hbcast.mpi.NodeLayout;

/**
 * Chooses the plan of a call from the message size and the layout. For now a size threshold:
 * small messages go to Open MPI's own broadcast (its latency path is hard to beat from Java),
 * large ones to the pipelined hierarchy (or the flat tree when every node holds one rank).
 * Explicit options win over the choice. Pure: the same inputs give the same plan on every rank.
 */
final class Selector {
    /** Below this many bytes {@code auto} delegates to native. */
    static final long SMALL_MESSAGE_BYTES = 64 << 10;
    static final int DEFAULT_CHUNK_BYTES = 256 << 10;
    static final int DEFAULT_RADIX = 2;

    private final BcastOptions options;
    private final NodeLayout layout;
    private final int maxChunkBytes;

    Selector(BcastOptions options, NodeLayout layout, int maxChunkBytes) {
        this.options = options;
        this.layout = layout;
        this.maxChunkBytes = maxChunkBytes;
    }

    Plan plan(long bytes) {
        Algorithm algorithm = options.algorithm();
        String reason;
        if (algorithm == Algorithm.AUTO) {
            if (bytes < SMALL_MESSAGE_BYTES) {
                algorithm = Algorithm.NATIVE;
                reason = "auto: " + bytes + " B is below " + SMALL_MESSAGE_BYTES + " B";
            } else if (layout.maxNodeSize() == 1) {
                algorithm = Algorithm.KNOMIAL;
                reason = "auto: every node holds one rank, so there is no ring";
            } else {
                algorithm = Algorithm.HIERARCHICAL;
                reason = "auto: " + bytes + " B is at least " + SMALL_MESSAGE_BYTES + " B";
            }
        } else {
            reason = "set by options";
        }
        int chunk = options.chunkBytes() != 0 ? options.chunkBytes() : DEFAULT_CHUNK_BYTES;
        chunk = Math.min(chunk, maxChunkBytes);
        int radix = options.radix() != 0 ? options.radix() : DEFAULT_RADIX;
        return new Plan(algorithm, chunk, radix, reason);
    }
}
