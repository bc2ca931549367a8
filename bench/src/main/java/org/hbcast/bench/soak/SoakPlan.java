package org.hbcast.bench.soak;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.BcastOptions.TreeShape;

/**
 * One plan a soak segment forces ({@code --plans}): an algorithm, and for the tree algorithms the
 * intra-node transport, the leaders' schedule and the chunk size, each left to the selector where not
 * given. Written as {@code algorithm[:intra][:inter][:chunk]}, e.g. {@code hierarchical:fanout:two-tree:64K}:
 * the first word is always the algorithm, so {@code knomial} after it is the leaders' schedule.
 *
 * <p>The options are passed in code, the same on every rank, so no rank can follow a different plan
 * (unlike {@code HBCAST_*} variables, which reach ranks on other hosts only with {@code mpirun -x}).
 *
 * @param algorithm the algorithm forced
 * @param intra intra-node transport, or {@link IntraNode#AUTO}
 * @param inter the leaders' schedule, or null for the selector's
 * @param chunkBytes chunk bytes, or 0 for the selector's
 */
record SoakPlan(Algorithm algorithm, IntraNode intra, TreeShape inter, int chunkBytes) {
    /**
     * Every plan that can be forced, once: Open MPI's own and the selector's, the flat tree under each
     * leaders' schedule, the hierarchy under each transport and schedule, and the chunk sizes at both
     * ends (many small chunks, few large ones) on a plan of each algorithm.
     */
    static List<SoakPlan> all() {
        List<SoakPlan> plans = new ArrayList<>();
        plans.add(parse("native"));
        plans.add(parse("auto"));
        for (TreeShape inter : TreeShape.values()) {
            plans.add(new SoakPlan(Algorithm.KNOMIAL, IntraNode.AUTO, inter, 0));
        }
        for (IntraNode intra : List.of(IntraNode.RING, IntraNode.FANOUT)) {
            for (TreeShape inter : TreeShape.values()) {
                plans.add(new SoakPlan(Algorithm.HIERARCHICAL, intra, inter, 0));
            }
        }
        plans.add(parse("knomial:knomial:64K"));
        plans.add(parse("hierarchical:ring:knomial:64K"));
        plans.add(parse("hierarchical:fanout:chain:4M"));
        return plans;
    }

    /** {@code all}, or plans separated by commas. */
    static List<SoakPlan> parseList(List<String> texts) {
        if (texts.size() == 1 && texts.get(0).strip().equalsIgnoreCase("all")) {
            return all();
        }
        return texts.stream().map(SoakPlan::parse).distinct().toList();
    }

    /** {@code algorithm[:intra][:inter][:chunk]}, the parts after the algorithm in any order. */
    static SoakPlan parse(String text) {
        String[] parts = text.strip().toLowerCase(Locale.ROOT).split(":");
        Algorithm algorithm = Algorithm.parse(parts[0]);
        IntraNode intra = IntraNode.AUTO;
        TreeShape inter = null;
        int chunk = 0;
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i];
            if (p.equals("ring") || p.equals("fanout")) {
                intra = IntraNode.parse("--plans", p);
            } else if (!p.isEmpty() && Character.isDigit(p.charAt(0))) {
                long bytes = Soak.parseBytes("--plans", p);
                if (bytes % 64 != 0 || bytes > BcastOptions.MAX_CHUNK_BYTES) {
                    throw new IllegalArgumentException(
                            "--plans: chunk " + p + " in '" + text + "' must be a multiple of 64 up to 16M");
                }
                chunk = (int) bytes;
            } else {
                inter = TreeShape.parse("--plans", p);
            }
        }
        if ((algorithm == Algorithm.NATIVE || algorithm == Algorithm.AUTO) && parts.length > 1) {
            throw new IllegalArgumentException(
                    "--plans: '" + text + "': " + algorithm + " takes no transport, schedule or chunk");
        }
        if (algorithm == Algorithm.KNOMIAL && intra != IntraNode.AUTO) {
            throw new IllegalArgumentException("--plans: '" + text + "': the flat tree has no intra-node transport");
        }
        return new SoakPlan(algorithm, intra, inter, chunk);
    }

    /** The options that force this plan, on top of the environment's. */
    BcastOptions options() {
        BcastOptions o = BcastOptions.defaults()
                .withAlgorithm(algorithm)
                .withIntra(intra)
                .withInter(inter);
        return chunkBytes > 0 ? o.withChunkBytes(chunkBytes) : o;
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(algorithm.toString());
        if (intra != IntraNode.AUTO) {
            s.append(':').append(intra);
        }
        if (inter != null) {
            s.append(':').append(inter);
        }
        if (chunkBytes > 0) {
            s.append(':');
            if (chunkBytes % (1 << 20) == 0) {
                s.append(chunkBytes >> 20).append('M');
            } else if (chunkBytes % 1024 == 0) {
                s.append(chunkBytes >> 10).append('K');
            } else {
                s.append(chunkBytes);
            }
        }
        return s.toString();
    }
}
