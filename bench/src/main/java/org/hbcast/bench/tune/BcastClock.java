package org.hbcast.bench.tune;

import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Times a collective the way OSU does (barrier, call, per-rank mean over iterations, the slowest
 * rank) and takes the median over repeats. Every rank gets the same figure, so decisions made on it
 * agree everywhere.
 */
final class BcastClock {
    /** One call of the thing timed. */
    interface Call {
        void run() throws MPIException;
    }

    private final Intracomm comm;
    private final int warmup;
    private final int iterations;

    BcastClock(Intracomm comm, int warmup, int iterations) {
        if (warmup < 0 || iterations < 1) {
            throw new IllegalArgumentException("warm-up must be >= 0 and iterations >= 1, got " + warmup + ", " + iterations);
        }
        this.comm = comm;
        this.warmup = warmup;
        this.iterations = iterations;
    }

    /** Seconds per call of the slowest rank, median of {@code repeats} runs. */
    double seconds(Call call, int repeats) throws MPIException {
        double[] runs = new double[repeats];
        for (int r = 0; r < repeats; r++) {
            runs[r] = once(call, r == 0 ? warmup : 0);
        }
        return median(runs);
    }

    /** The middle value (the upper one of an even count). */
    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** One run: seconds per call of the slowest rank. */
    double once(Call call, int warm) throws MPIException {
        long total = 0;
        for (int i = -warm; i < iterations; i++) {
            comm.barrier();
            long t0 = System.nanoTime();
            call.run();
            long t1 = System.nanoTime();
            if (i >= 0) {
                total += t1 - t0;
            }
        }
        double[] mine = {total / 1e9 / iterations};
        comm.allReduce(mine, 1, MPI.DOUBLE, MPI.MAX);
        return mine[0];
    }
}
