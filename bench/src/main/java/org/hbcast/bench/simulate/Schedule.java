package org.hbcast.bench.simulate;

import java.util.Locale;
import org.hbcast.plan.Algorithm;
import org.hbcast.schedule.TreeShape;

/** The broadcasts the simulator plays: hbcast's (as its selector would run them) and Open MPI's defaults. */
public enum Schedule {
    /** hbcast's flat k-nomial tree over every rank, chunk and radix as the selector picks them. */
    KNOMIAL(Algorithm.KNOMIAL, TreeShape.KNOMIAL),
    /** hbcast's flat pipelined chain over every rank. */
    CHAIN(Algorithm.KNOMIAL, TreeShape.CHAIN),
    /** hbcast's flat two trees over every rank. */
    TWO_TREE(Algorithm.KNOMIAL, TreeShape.TWO_TREE),
    /** hbcast's hierarchy, a k-nomial tree among the leaders. */
    HIERARCHICAL_KNOMIAL(Algorithm.HIERARCHICAL, TreeShape.KNOMIAL),
    /** hbcast's hierarchy, a chain among the leaders. */
    HIERARCHICAL_CHAIN(Algorithm.HIERARCHICAL, TreeShape.CHAIN),
    /** hbcast's hierarchy, two trees among the leaders. */
    HIERARCHICAL_TWO_TREE(Algorithm.HIERARCHICAL, TreeShape.TWO_TREE),
    /** hbcast's {@code knomial} algorithm as a user sets it: over every rank, the shape left to the selector. */
    FLAT(Algorithm.KNOMIAL, null),
    /** hbcast's {@code hierarchical} algorithm as a user sets it: the leaders' schedule left to the selector. */
    HIERARCHICAL(Algorithm.HIERARCHICAL, null),
    /** What hbcast's selector chooses for the shape and size. */
    AUTO(Algorithm.AUTO, null),
    /** Open MPI han: a binomial tree among the leaders over 512 KiB segments, then inside each node. */
    HAN(null, null),
    /** Open MPI tuned's fixed decision rules (4.1 and 5.0). */
    TUNED(null, null),
    /** An unsegmented binomial tree over every rank. */
    FLAT_BINOMIAL(null, null);

    private final Algorithm algorithm;
    private final TreeShape inter;

    Schedule(Algorithm algorithm, TreeShape inter) {
        this.algorithm = algorithm;
        this.inter = inter;
    }

    /** The library's algorithm, or null for Open MPI's schedules. */
    Algorithm algorithm() {
        return algorithm;
    }

    /** The tree shape the library is forced to, or null where the selector picks. */
    TreeShape inter() {
        return inter;
    }

    /** Whether this is one of hbcast's. */
    public boolean isHbcast() {
        return algorithm != null;
    }

    /** Parses a name such as {@code hierarchical/two-tree}, {@code han}, {@code auto}. */
    public static Schedule parse(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        for (Schedule s : values()) {
            if (s.toString().equals(t)) {
                return s;
            }
        }
        StringBuilder names = new StringBuilder();
        for (Schedule s : values()) {
            names.append(names.length() == 0 ? "" : ", ").append(s);
        }
        throw new IllegalArgumentException("unknown schedule '" + text + "': one of " + names);
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT)
                .replace("hierarchical_", "hierarchical/")
                .replace('_', '-');
    }
}
