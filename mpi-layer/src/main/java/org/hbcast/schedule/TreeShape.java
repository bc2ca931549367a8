package org.hbcast.schedule;

import java.util.Arrays;
import java.util.Locale;

/**
 * The shapes a pipelined broadcast among participants can take, as pure functions of the
 * participant relative to the root ({@code rel 0}), their number {@code n} and a radix (used by the
 * k-nomial tree only). Chunk {@code s} travels down tree {@code s % trees()}.
 *
 * <ul>
 *   <li>{@link #KNOMIAL}: latency-optimal ({@code ceil(log_k n)} rounds), but the root sends every
 *       chunk to each of its {@code (k - 1) ceil(log_k n)} children;
 *   <li>{@link #CHAIN}: each participant forwards every chunk to the next; every one sends the message
 *       once, and the first chunk needs {@code n - 1} hops;
 *   <li>{@link #TWO_TREE}: two binary trees, each carrying half the chunks, every participant an inner
 *       node of at most one ({@link TwoTree}): every one sends the message about once, with a depth
 *       of {@code ceil(log2 n)} + 1.
 * </ul>
 */
public enum TreeShape {
    KNOMIAL,
    CHAIN,
    TWO_TREE;

    /** How many trees the chunks are dealt over. */
    public int trees() {
        return this == TWO_TREE ? 2 : 1;
    }

    /** The parent of {@code rel} in {@code tree}, or -1 for the root. */
    public int parent(int tree, int rel, int n, int radix) {
        return switch (this) {
            case KNOMIAL -> KnomialTree.parent(rel, n, radix);
            case CHAIN -> {
                checkChain(rel, n);
                yield rel - 1;
            }
            case TWO_TREE -> TwoTree.parent(tree, rel, n);
        };
    }

    /**
     * Writes the children of {@code rel} in {@code tree} into {@code out}, farthest first, and returns
     * how many; {@code out} needs room for {@link #maxChildren}.
     */
    public int children(int tree, int rel, int n, int radix, int[] out) {
        return switch (this) {
            case KNOMIAL -> KnomialTree.children(rel, n, radix, out);
            case CHAIN -> {
                checkChain(rel, n);
                if (rel + 1 < n) {
                    out[0] = rel + 1;
                    yield 1;
                }
                yield 0;
            }
            case TWO_TREE -> TwoTree.children(tree, rel, n, out);
        };
    }

    /** Most children any participant has in one tree. */
    public int maxChildren(int n, int radix) {
        return switch (this) {
            case KNOMIAL -> KnomialTree.maxChildren(n, radix);
            case CHAIN -> 1;
            case TWO_TREE -> 2;
        };
    }

    /**
     * Sends, one after another at each participant (children in order, chunk 0 down tree 0 first),
     * until the first chunk of every tree has reached every participant: the pipeline's fill in
     * transfer steps.
     */
    public int fillSends(int n, int radix) {
        int[] arrival = new int[n];
        int[] kids = new int[Math.max(1, maxChildren(n, radix))];
        int latest = 0;
        for (int tree = 0; tree < trees(); tree++) {
            Arrays.fill(arrival, -1);
            arrival[0] = tree;
            // Parents precede children in no fixed rank order (two trees): relax until every arrival is known.
            for (boolean changed = true; changed; ) {
                changed = false;
                for (int rel = 0; rel < n; rel++) {
                    if (arrival[rel] < 0) {
                        continue;
                    }
                    int count = children(tree, rel, n, radix, kids);
                    for (int j = 0; j < count; j++) {
                        if (arrival[kids[j]] < 0) {
                            arrival[kids[j]] = arrival[rel] + j + 1;
                            latest = Math.max(latest, arrival[kids[j]]);
                            changed = true;
                        }
                    }
                }
            }
        }
        return latest;
    }

    /**
     * Sends per chunk at the busiest participant, averaged over the trees: in a pipeline past its fill,
     * how many chunk transfers one participant's link carries per chunk of the message.
     */
    public double busiestSendsPerChunk(int n, int radix) {
        if (n <= 1) {
            return 0;
        }
        int[] kids = new int[Math.max(1, maxChildren(n, radix))];
        int busiest = 0;
        for (int rel = 0; rel < n; rel++) {
            int sends = 0;
            for (int tree = 0; tree < trees(); tree++) {
                sends += children(tree, rel, n, radix, kids);
            }
            busiest = Math.max(busiest, sends);
        }
        return (double) busiest / trees();
    }

    /** Parses {@code knomial|chain|two-tree}; {@code setting} is the option named in the error. */
    public static TreeShape parse(String setting, String text) {
        String t = text.strip().toLowerCase(Locale.ROOT).replace('_', '-');
        for (TreeShape s : values()) {
            if (s.toString().equals(t)) {
                return s;
            }
        }
        throw new IllegalArgumentException(setting + "='" + text + "' must be knomial, chain or two-tree");
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static void checkChain(int rel, int n) {
        if (n < 1 || rel < 0 || rel >= n) {
            throw new IllegalArgumentException("relative rank " + rel + " outside 0.." + (n - 1));
        }
    }
}
