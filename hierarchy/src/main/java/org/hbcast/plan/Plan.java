package org.hbcast.plan;

import java.util.Objects;
import org.hbcast.schedule.TreeShape;

/**
 * What one broadcast will do: the algorithm (never {@link Algorithm#AUTO}), the chunk size both
 * levels pipeline over, the tree radix, how chunks move inside nodes (ring or fan-out; the
 * hierarchy's choice, ignored by the flat algorithms), the shape of the leaders' schedule (the
 * hierarchy's, or the flat tree's over every rank), why it was chosen, and the time the cost
 * model predicts and a tuning table measured for it (NaN where there is none).
 */
public record Plan(
        Algorithm algorithm,
        int chunkBytes,
        int radix,
        IntraNode intra,
        TreeShape inter,
        String reason,
        double predictedSeconds,
        double measuredSeconds) {
    public Plan {
        if (algorithm == Algorithm.AUTO) {
            throw new IllegalArgumentException("a plan names a concrete algorithm");
        }
        if (chunkBytes < 1) {
            throw new IllegalArgumentException("chunk size must be positive, got " + chunkBytes);
        }
        if (radix < 2) {
            throw new IllegalArgumentException("radix must be at least 2, got " + radix);
        }
        if (Objects.requireNonNull(intra, "intra") == IntraNode.AUTO) {
            throw new IllegalArgumentException("a plan names a concrete intra-node transport");
        }
        Objects.requireNonNull(inter, "inter");
    }

    /** A plan without predicted or measured times, its leaders on a k-nomial tree. */
    public Plan(Algorithm algorithm, int chunkBytes, int radix, IntraNode intra, String reason) {
        this(algorithm, chunkBytes, radix, intra, TreeShape.KNOMIAL, reason, Double.NaN, Double.NaN);
    }

    /** This plan with other chunks, and no predicted or measured times. */
    public Plan withChunk(int bytes, String why) {
        return new Plan(algorithm, bytes, radix, intra, inter, why, Double.NaN, Double.NaN);
    }

    /** The tree this plan runs: among node leaders for the hierarchy, over every rank for the flat tree. */
    public TreeShape leaderShape() {
        return algorithm == Algorithm.NATIVE ? TreeShape.KNOMIAL : inter;
    }

    /** True when this plan moves chunks through the node's fan-out segment. */
    public boolean usesFanout() {
        return algorithm == Algorithm.HIERARCHICAL && intra == IntraNode.FANOUT;
    }

    /** True when this plan moves chunks through the node's ring. */
    public boolean usesRing() {
        return algorithm == Algorithm.HIERARCHICAL && intra == IntraNode.RING;
    }
}
