package org.hbcast.bench.simulate;

/**
 * Open MPI's scatter-allgather broadcasts (tuned algorithms 8 and 9): the message cut into one block
 * per rank, scattered down a binomial tree, then gathered back by every rank by recursive doubling
 * (8) or around a ring (9). Each step starts when both of its ranks finished the step before.
 * Recursive doubling is played over the ranks' power-of-two part, the others fed last by a partner
 * there, which is close to Open MPI's handling of other counts.
 */
final class ScatterAllgather {
    private ScatterAllgather() {}

    static double play(Fabric fabric, long bytes, boolean ring) {
        int p = fabric.ranks();
        if (bytes <= 0 || p == 1) {
            return 0;
        }
        fabric.reset();
        double block = (double) bytes / p;
        double[] ready = new double[p];
        // Binomial scatter: relative rank r receives the blocks of its subtree [r, r + span).
        int top = Integer.highestOneBit(p - 1) << 1;
        for (int span = top; span > 1; span >>= 1) {
            int half = span >> 1;
            for (int r = 0; r < p; r += span) {
                int child = r + half;
                if (child < p) {
                    int blocks = Math.min(half, p - child);
                    ready[child] = fabric.transfer(r, child, blocks * block, ready[r]);
                }
            }
        }
        double[] next = new double[p];
        if (ring) {
            for (int step = 0; step < p - 1; step++) {
                for (int r = 0; r < p; r++) {
                    int to = (r + 1) % p;
                    next[to] = Math.max(next[to], fabric.transfer(r, to, block, ready[r]));
                }
                for (int r = 0; r < p; r++) {
                    ready[r] = Math.max(ready[r], next[r]);
                }
            }
        } else {
            int pow = Integer.highestOneBit(p);
            for (int d = 1; d < pow; d <<= 1) {
                for (int r = 0; r < pow; r++) {
                    int partner = r ^ d;
                    double start = Math.max(ready[r], ready[partner]);
                    next[partner] = fabric.transfer(r, partner, d * block, start);
                }
                for (int r = 0; r < pow; r++) {
                    ready[r] = Math.max(ready[r], next[r]);
                }
            }
            for (int r = pow; r < p; r++) {
                ready[r] = fabric.transfer(r - pow, r, bytes - block, Math.max(ready[r - pow], ready[r]));
            }
        }
        double finish = 0;
        for (double t : ready) {
            finish = Math.max(finish, t);
        }
        return finish;
    }
}
