package org.hbcast.schedule;

/**
 * The two trees of Sanders, Speck and Träff (2009) over {@code n} participants, as pure,
 * allocation-free functions: half the chunks go down each tree, and every participant is an inner
 * node of at most one of them, so each sends about the message once and a pipelined broadcast
 * approaches {@code m / B} plus a latency logarithmic in {@code n}.
 *
 * <p>Participants are relative to the root ({@code rel 0}). The others, {@code m = n - 1} of them,
 * get a label {@code 1..m} in each tree: {@code rel} in tree 0, {@code rel - 1} in tree 1 (and
 * {@code m} for {@code rel 1}). Over its labels a tree is the in-order binary tree: label {@code x}
 * with {@code t} trailing zero bits has the children {@code x - 2^(t-1)} and the largest
 * {@code x + 2^j <= m}, {@code j < t}; its top is the highest power of two {@code <= m}, the root's
 * only child in that tree. Leaves have odd labels, so a participant inner in tree 0 (even {@code rel})
 * has an odd label in tree 1: a leaf there.
 */
public final class TwoTree {
    private TwoTree() {}

    /** The label of {@code rel > 0} in {@code tree}, among {@code m} non-roots. */
    static int label(int tree, int rel, int m) {
        return tree == 0 ? rel : rel == 1 ? m : rel - 1;
    }

    /** The participant carrying {@code label} in {@code tree}. */
    static int participant(int tree, int label, int m) {
        return tree == 0 ? label : label == m ? 1 : label + 1;
    }

    /** The parent of {@code rel} in {@code tree} (0 or 1), or -1 for the root. */
    public static int parent(int tree, int rel, int n) {
        check(tree, rel, n);
        if (rel == 0) {
            return -1;
        }
        int m = n - 1;
        int x = label(tree, rel, m);
        int node = Integer.highestOneBit(m);
        if (node == x) {
            return 0;
        }
        while (true) {
            int next = x < node ? node - (Integer.lowestOneBit(node) >> 1) : rightChild(node, m);
            if (next == x) {
                return participant(tree, node, m);
            }
            node = next;
        }
    }

    /** Writes the children of {@code rel} in {@code tree} into {@code out} (room for 2) and returns how many. */
    public static int children(int tree, int rel, int n, int[] out) {
        check(tree, rel, n);
        int m = n - 1;
        if (m == 0) {
            return 0;
        }
        if (rel == 0) {
            out[0] = participant(tree, Integer.highestOneBit(m), m);
            return 1;
        }
        int x = label(tree, rel, m);
        if ((x & 1) != 0) {
            return 0;
        }
        int count = 0;
        out[count++] = participant(tree, x - (Integer.lowestOneBit(x) >> 1), m);
        int right = rightChild(x, m);
        if (right > 0) {
            out[count++] = participant(tree, right, m);
        }
        return count;
    }

    /** The right child of the even label {@code x}: the largest {@code x + 2^j <= m} below its weight, or 0. */
    private static int rightChild(int x, int m) {
        for (int step = Integer.lowestOneBit(x) >> 1; step > 0; step >>= 1) {
            if (x + step <= m) {
                return x + step;
            }
        }
        return 0;
    }

    private static void check(int tree, int rel, int n) {
        if (n < 1) {
            throw new IllegalArgumentException("a tree needs at least one participant, got n=" + n);
        }
        if (tree != 0 && tree != 1) {
            throw new IllegalArgumentException("there are two trees, 0 and 1, not " + tree);
        }
        if (rel < 0 || rel >= n) {
            throw new IllegalArgumentException("relative rank " + rel + " outside 0.." + (n - 1));
        }
    }
}
