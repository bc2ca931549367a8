package org.hbcast;

/**
 * What one broadcast will do: the algorithm (never {@link Algorithm#AUTO}), the chunk size both
 * levels pipeline over, the tree radix, why it was chosen, and the time the cost model predicts
 * and a tuning table measured for it (NaN where there is none).
 */
public record Plan(Algorithm algorithm, int chunkBytes, int radix, String reason, double predictedSeconds,
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
    }

    /** A plan without predicted or measured times. */
    public Plan(Algorithm algorithm, int chunkBytes, int radix, String reason) {
        this(algorithm, chunkBytes, radix, reason, Double.NaN, Double.NaN);
    }
}
