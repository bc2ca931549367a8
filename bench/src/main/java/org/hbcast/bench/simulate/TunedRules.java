package org.hbcast.bench.simulate;

/**
 * Open MPI tuned's fixed decision for {@code MPI_Bcast} (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
 * the same rules in 4.1 and 5.0): the algorithm by communicator size and message size. The rules pass
 * segment size 0, so every algorithm sends the message unsegmented.
 */
final class TunedRules {
    private TunedRules() {}

    private static final String[] NAMES = {
        "",
        "basic linear",
        "chain",
        "pipeline",
        "split binary tree",
        "binary tree",
        "binomial",
        "knomial",
        "scatter-allgather",
        "scatter-allgather ring"
    };

    static String name(int alg) {
        return NAMES[alg];
    }

    /** The algorithm number tuned picks for {@code p} ranks and {@code bytes}. */
    static int bcastAlgorithm(int p, long bytes) {
        long m = bytes;
        if (p < 4) {
            return m < 32
                    ? 3
                    : m < 256
                            ? 5
                            : m < 512
                                    ? 3
                                    : m < 1024
                                            ? 7
                                            : m < 32768
                                                    ? 1
                                                    : m < 131072
                                                            ? 5
                                                            : m < 262144 ? 2 : m < 524288 ? 1 : m < 1048576 ? 6 : 5;
        } else if (p < 8) {
            return m < 64 ? 5 : m < 128 ? 6 : m < 2048 ? 5 : m < 8192 ? 6 : m < 1048576 ? 1 : 2;
        } else if (p < 16) {
            return m < 8 ? 7 : m < 64 ? 5 : m < 4096 ? 7 : m < 16384 ? 5 : m < 32768 ? 6 : 1;
        } else if (p < 32) {
            return m < 4096 ? 7 : m < 1048576 ? 6 : 8;
        } else if (p < 64) {
            return m < 2048 ? 6 : 7;
        } else if (p < 128) {
            return 7;
        } else if (p < 256) {
            return m < 2 ? 6 : m < 16384 ? 5 : m < 32768 ? 1 : m < 65536 ? 5 : 7;
        } else if (p < 1024) {
            return m < 16384 ? 7 : m < 32768 ? 4 : 7;
        } else if (p < 2048) {
            return m < 524288 ? 7 : 8;
        } else if (p < 4096) {
            return m < 262144 ? 7 : 8;
        }
        return m < 8192 ? 7 : m < 16384 ? 5 : m < 262144 ? 7 : 8;
    }
}
