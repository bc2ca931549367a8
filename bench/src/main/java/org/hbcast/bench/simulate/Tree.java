package org.hbcast.bench.simulate;

import org.hbcast.schedule.TreeShape;

/**
 * A broadcast tree over participants {@code 0..n-1} relative to the root (0): the library's shapes
 * ({@link TreeShape}, the very functions its broadcasts run) and Open MPI's own ones. Chunk {@code s}
 * travels down tree {@code s % trees()}.
 */
interface Tree {
    int trees();

    /** Writes the children of {@code rel} in {@code tree}, in sending order, and returns how many. */
    int children(int tree, int rel, int[] out);

    /** Room {@link #children} needs. */
    int maxChildren();

    /** The library's {@code shape} over {@code n} participants. */
    static Tree of(TreeShape shape, int n, int radix) {
        int most = Math.max(1, shape.maxChildren(n, radix));
        return new Tree() {
            @Override
            public int trees() {
                return shape.trees();
            }

            @Override
            public int children(int tree, int rel, int[] out) {
                return shape.children(tree, rel, n, radix, out);
            }

            @Override
            public int maxChildren() {
                return most;
            }
        };
    }

    /** Open MPI's binary tree (base topo, fan-out 2): participant {@code i} feeds {@code 2i+1} and {@code 2i+2}. */
    static Tree binary(int n) {
        return new Tree() {
            @Override
            public int trees() {
                return 1;
            }

            @Override
            public int children(int tree, int rel, int[] out) {
                int count = 0;
                for (int c = 2 * rel + 1; c <= 2 * rel + 2 && c < n; c++) {
                    out[count++] = c;
                }
                return count;
            }

            @Override
            public int maxChildren() {
                return 2;
            }
        };
    }

    /** Open MPI's basic linear broadcast: the root sends to every other participant in turn. */
    static Tree linear(int n) {
        return new Tree() {
            @Override
            public int trees() {
                return 1;
            }

            @Override
            public int children(int tree, int rel, int[] out) {
                if (rel != 0) {
                    return 0;
                }
                for (int c = 1; c < n; c++) {
                    out[c - 1] = c;
                }
                return n - 1;
            }

            @Override
            public int maxChildren() {
                return Math.max(1, n - 1);
            }
        };
    }
}
