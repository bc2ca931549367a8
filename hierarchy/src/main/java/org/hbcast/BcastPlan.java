package org.hbcast;

/**
 * What a broadcast of a given size runs: the algorithm, how chunks move inside nodes, the leaders'
 * schedule, the chunk both levels pipeline over, the tree radix, and why. Names are those of the
 * settings that fix them ({@code HBCAST_ALGORITHM}, {@code HBCAST_INTRA}, {@code HBCAST_INTER}).
 * A read-only copy.
 *
 * @param algorithm {@code native}, {@code knomial} or {@code hierarchical}
 * @param intra {@code ring} or {@code fanout}: the hierarchy's transport inside nodes (the flat
 *        algorithms ignore it)
 * @param inter {@code knomial}, {@code chain} or {@code two-tree}: the leaders' schedule, or the flat
 *        tree's over every rank
 * @param reason why this plan (cost model, tuning table, options, trials)
 * @param predictedSeconds the cost model's time for this plan at the size asked, NaN where it has none
 * @param measuredSeconds a tuning table's time at that size, NaN without one
 */
public record BcastPlan(
        String algorithm,
        String intra,
        String inter,
        int chunkBytes,
        int radix,
        String reason,
        double predictedSeconds,
        double measuredSeconds) {

    /** "hierarchical/fanout", "knomial/chain", "native": what explanations and reports call the plan. */
    public String name() {
        if (algorithm.equals("knomial")) {
            return inter.equals("knomial") ? algorithm : algorithm + "/" + inter;
        }
        if (!algorithm.equals("hierarchical")) {
            return algorithm;
        }
        return inter.equals("knomial") ? algorithm + "/" + intra : algorithm + "/" + intra + "/" + inter;
    }

    /** True for the two-level plan: a tree among node leaders, a transport inside each node. */
    public boolean hierarchical() {
        return algorithm.equals("hierarchical");
    }
}
