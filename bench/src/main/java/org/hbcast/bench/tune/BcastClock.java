package org.hbcast.bench.tune;

import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * Times a collective the way OSU does (barrier, call, per-rank mean over the calls, the slowest
 * rank) and takes the median over repeats. Every rank gets the same figure, so decisions made on it
 * agree everywhere.
 *
 * <p>A run makes at least {@code iterations} calls, and more when a run would otherwise last less
 * than {@code minRunSeconds}: a 10 µs broadcast timed ten times is mostly the scheduler of an
 * oversubscribed machine. The count comes from the warm-up calls' time, agreed by every rank.
 */
final class BcastClock {
    /** Most calls one run makes, whatever the time budget asks. */
    static final int MAX_CALLS = 2000;

    /** One call of the thing timed. */
    interface Call {
        void run() throws MPIException;
    }

    private final Intracomm comm;
    private final int warmup;
    private final int iterations;
    private final double minRunSeconds;

    BcastClock(Intracomm comm, int warmup, int iterations) {
        this(comm, warmup, iterations, 0);
    }

    BcastClock(Intracomm comm, int warmup, int iterations, double minRunSeconds) {
        if (warmup < 0 || iterations < 1 || !(minRunSeconds >= 0)) {
            throw new IllegalArgumentException("warm-up and run time must be >= 0 and iterations >= 1, got " + warmup
                    + ", " + minRunSeconds + ", " + iterations);
        }
        this.comm = comm;
        this.warmup = warmup;
        this.iterations = iterations;
        this.minRunSeconds = minRunSeconds;
    }

    /** Seconds per call of the slowest rank, median of {@code repeats} runs after the warm-up. */
    double seconds(Call call, int repeats) throws MPIException {
        return median(interleaved(new Call[] {call}, repeats)[0]);
    }

    /**
     * Runs the warm-up calls (at least one) twice; returns the slowest rank's seconds per call of the
     * second round. The first calls of a fresh broadcast fault in its buffers' pages and can take a
     * hundred times a steady call: a count taken from them would make runs too short to average
     * over the scheduler.
     */
    double warm(Call call) throws MPIException {
        once(call, Math.max(1, warmup));
        return once(call, Math.max(1, warmup));
    }

    /** Calls per run for a call of {@code secondsPerCall}: {@code iterations}, or more to fill the minimum run time. */
    int calls(double secondsPerCall) {
        if (minRunSeconds <= 0 || secondsPerCall <= 0) {
            return iterations;
        }
        return (int) Math.max(iterations, Math.min(MAX_CALLS, Math.ceil(minRunSeconds / secondsPerCall)));
    }

    /**
     * Runs of every one of {@code calls}, interleaved: each run times each call once, the order
     * rotating from run to run so that none always goes first, and a slow spell of the machine, which
     * lasts longer than a run, falls on all of them alike. Each call is warmed up first and makes the
     * calls per run its own warm-up asks ({@link #calls}). Returns seconds per call, {@code [call][run]}.
     */
    double[][] interleaved(Call[] calls, int repeats) throws MPIException {
        return interleaved(calls, repeats, 0);
    }

    /** {@link #interleaved(Call[], int)} with the first run starting at call {@code start} (modulo their count). */
    double[][] interleaved(Call[] calls, int repeats, int start) throws MPIException {
        int[] counts = new int[calls.length];
        for (int v = 0; v < calls.length; v++) {
            counts[v] = calls(warm(calls[v]));
        }
        double[][] runs = new double[calls.length][repeats];
        for (int r = 0; r < repeats; r++) {
            for (int i = 0; i < calls.length; i++) {
                int v = Math.floorMod(i + r + start, calls.length);
                runs[v][r] = once(calls[v], counts[v]);
            }
        }
        return runs;
    }

    /** The middle value (the upper one of an even count). */
    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    /** One run of {@code calls} calls: seconds per call of the slowest rank. */
    double once(Call call, int calls) throws MPIException {
        long total = 0;
        for (int i = 0; i < calls; i++) {
            comm.barrier();
            long t0 = System.nanoTime();
            call.run();
            total += System.nanoTime() - t0;
        }
        double[] mine = {total / 1e9 / calls};
        comm.allReduce(mine, 1, MPI.DOUBLE, MPI.MAX);
        return mine[0];
    }
}
