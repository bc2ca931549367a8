package org.hbcast.schedule;

/**
 * The k-nomial tree over {@code n} participants, as pure, allocation-free functions.
 *
 * <p>Ranks are relative to the root: {@code rel = (rank - root + n) % n}. The parent of
 * {@code rel > 0} is {@code rel} with its lowest non-zero base-{@code k} digit cleared; the children
 * of {@code rel} are {@code rel + j * k^i} for every digit position {@code i} below that lowest
 * digit (every position for the root) and {@code j = 1..k-1}, kept when {@code < n}. Radix 2 is the
 * binomial tree. Children are listed farthest first, so the subtrees with the most work start first.
 * A participant receives in round {@code rounds(n, k) - i} where {@code k^i} is its lowest non-zero
 * digit's weight, so the broadcast takes {@code rounds(n, k) = ceil(log_k n)} rounds.
 */
public final class KnomialTree {
    private KnomialTree() {}

    public static int toRelative(int rank, int root, int n) {
        return (rank - root + n) % n;
    }

    public static int toAbsolute(int rel, int root, int n) {
        return (rel + root) % n;
    }

    /** {@code ceil(log_k n)}: the number of rounds; 0 for a single participant. */
    public static int rounds(int n, int radix) {
        checkArgs(n, radix);
        int rounds = 0;
        for (long span = 1; span < n; span *= radix) {
            rounds++;
        }
        return rounds;
    }

    /** Weight {@code k^i} of the lowest non-zero digit of {@code rel > 0}. */
    static long lowestDigitWeight(int rel, int radix) {
        long weight = 1;
        while ((rel / weight) % radix == 0) {
            weight *= radix;
        }
        return weight;
    }

    /** The parent of {@code rel}, or -1 for the root. */
    public static int parent(int rel, int n, int radix) {
        checkRel(rel, n, radix);
        if (rel == 0) {
            return -1;
        }
        long weight = lowestDigitWeight(rel, radix);
        long digit = (rel / weight) % radix;
        return (int) (rel - digit * weight);
    }

    /** The round (1-based) in which {@code rel} receives; 0 for the root. */
    public static int arrivalRound(int rel, int n, int radix) {
        checkRel(rel, n, radix);
        if (rel == 0) {
            return 0;
        }
        int below = 0;
        for (long w = lowestDigitWeight(rel, radix); w > 1; w /= radix) {
            below++;
        }
        return rounds(n, radix) - below;
    }

    /**
     * Writes the children of {@code rel} into {@code out}, farthest first, and returns how many there
     * are; {@code out} needs room for {@link #maxChildren(int, int)}.
     */
    public static int children(int rel, int n, int radix, int[] out) {
        checkRel(rel, n, radix);
        long limit = rel == 0 ? n : lowestDigitWeight(rel, radix);
        long top = 1;
        while (top * radix < limit && top * radix < n) {
            top *= radix;
        }
        int count = 0;
        for (long weight = top; weight >= 1; weight /= radix) {
            if (weight >= limit) {
                continue;
            }
            for (int j = radix - 1; j >= 1; j--) {
                long child = rel + j * weight;
                if (child < n) {
                    out[count++] = (int) child;
                }
            }
        }
        return count;
    }

    /** Most children any participant can have: the root's {@code (k - 1) * rounds} at most. */
    public static int maxChildren(int n, int radix) {
        return (radix - 1) * rounds(n, radix);
    }

    private static void checkArgs(int n, int radix) {
        if (n < 1) {
            throw new IllegalArgumentException("a tree needs at least one participant, got n=" + n);
        }
        if (radix < 2) {
            throw new IllegalArgumentException("the radix must be at least 2, got " + radix);
        }
    }

    private static void checkRel(int rel, int n, int radix) {
        checkArgs(n, radix);
        if (rel < 0 || rel >= n) {
            throw new IllegalArgumentException("relative rank " + rel + " outside 0.." + (n - 1));
        }
    }
}
