package org.hbcast.testing;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import mpi.Intracomm;
import mpi.MPI;

/**
 * The frame of every MPI test program: initialises MPI, runs the body on each rank with a
 * {@link RankReport}, writes the rank's {@link RankResult} into the directory {@link MpiLaunch}
 * names in {@value #RESULTS_DIR_ENV} (for the test to check) and prints one verdict line per rank
 * (for people reading the output).
 *
 * <p>A body records its cases in the report and may throw on failure. A rank whose body throws
 * writes its result and prints its verdict and stack trace, then aborts the job, so the other ranks
 * do not wait for it until the launch times out.
 */
public final class MpiTestProgram {
    /** Marks the verdict lines in the merged output of all ranks. */
    public static final String VERDICT = "HBCAST-VERDICT";
    /** The directory a launch's ranks write their results into; unset, they only print verdicts. */
    public static final String RESULTS_DIR_ENV = "HBCAST_TEST_RESULTS_DIR";

    /** What one rank does: records its cases in {@code report}; returns a one-line detail for the verdict. */
    @FunctionalInterface
    public interface Body {
        String run(Intracomm world, String[] args, RankReport report) throws Exception;
    }

    /** How long a rank that exits without finalizing waits for the other ranks' results. */
    public static final long EXIT_WAIT_MS = 30_000;

    private MpiTestProgram() {}

    /** How a rank ends after a successful body. */
    public enum Finish {
        /** {@code MPI.Finalize()}: the normal end. */
        FINALIZE,
        /**
         * Exit without finalizing: for tests in which a peer has died, where finalize would wait
         * for it forever.
         */
        EXIT,
        /**
         * {@link #EXIT}, after waiting (up to {@value #EXIT_WAIT_MS} ms) for every rank's result: for
         * tests in which every rank lives but some may be left waiting on a peer. mpirun ends the
         * whole job when one rank exits without finalizing, which would otherwise cut off a slower
         * rank before it reports.
         */
        EXIT_WHEN_ALL_REPORTED
    }

    public static void run(String[] args, Body body) throws Exception {
        run(args, body, Finish.FINALIZE);
    }

    public static void run(String[] args, Body body, Finish finish) throws Exception {
        runInitialised(MPI.Init(args), body, finish);
    }

    /**
     * {@link #run(String[], Body)} with MPI initialised by {@code MPI.InitThread(args, required)};
     * the body reads the level MPI provides with {@code MPI.queryThread()}.
     */
    public static void runThreaded(String[] args, int required, Body body) throws Exception {
        runThreaded(args, required, body, Finish.FINALIZE);
    }

    /** {@link #runThreaded(String[], int, Body)} ending as {@code finish} says. */
    public static void runThreaded(String[] args, int required, Body body, Finish finish) throws Exception {
        MPI.InitThread(args, required);
        runInitialised(args, body, finish);
    }

    private static void runInitialised(String[] rest, Body body, Finish finish) throws Exception {
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        RankReport report = new RankReport();
        String detail;
        try {
            detail = body.run(world, rest, report);
        } catch (Throwable t) {
            report.uncaught(t);
            RankResult result = report.result(rank, false);
            write(result);
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            System.out.println(VERDICT + " " + rank + " FAIL " + oneLine(result.summary()));
            System.out.flush();
            System.err.println("rank " + rank + ": " + trace);
            System.err.flush();
            world.abort(1);
            return;
        }
        RankResult result = report.result(rank, true);
        write(result);
        System.out.println(VERDICT + " " + rank + (result.ok() ? " OK " : " FAIL ") + oneLine(detail) + " ["
                + oneLine(result.summary()) + "]");
        System.out.flush();
        if (finish == Finish.EXIT_WHEN_ALL_REPORTED) {
            awaitResults(world.getSize());
        }
        if (finish != Finish.FINALIZE) {
            Runtime.getRuntime().halt(0);
        }
        MPI.Finalize();
    }

    /**
     * Writes the result where the launch asked; a rank that cannot leaves no file, which the test
     * reports as such (with this message in the output).
     */
    private static void write(RankResult result) {
        String dir = System.getenv(RESULTS_DIR_ENV);
        if (dir == null || dir.isEmpty()) {
            return;
        }
        try {
            result.writeTo(Path.of(dir));
        } catch (IOException | RuntimeException e) {
            System.err.println("rank " + result.rank() + ": cannot write its result into " + dir + ": " + e);
            System.err.flush();
        }
    }

    /** Waits until every rank has written its result, or {@link #EXIT_WAIT_MS} has passed. */
    private static void awaitResults(int size) throws InterruptedException {
        String dir = System.getenv(RESULTS_DIR_ENV);
        if (dir == null || dir.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + EXIT_WAIT_MS * 1_000_000L;
        for (int r = 0; r < size; r++) {
            Path file = Path.of(dir).resolve(RankResult.fileName(r));
            while (!Files.exists(file) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
        }
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replace('\n', ' ').replace('\r', ' ');
    }
}
