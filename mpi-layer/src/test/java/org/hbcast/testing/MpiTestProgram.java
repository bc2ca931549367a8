package org.hbcast.testing;

import java.io.PrintWriter;
import java.io.StringWriter;
import mpi.Intracomm;
import mpi.MPI;

/**
 * The frame of every MPI test program: initialises MPI, runs the body on each rank and prints one
 * verdict line per rank for {@link MpiLaunch} to collect.
 *
 * <p>A body returns a short detail on success and throws on failure. A failing rank prints its
 * verdict and stack trace and then aborts the job, so the other ranks do not wait for it until the
 * launch times out.
 */
public final class MpiTestProgram {
    /** Marks the verdict lines in the merged output of all ranks. */
    public static final String VERDICT = "HBCAST-VERDICT";

    /** What one rank does; returns a one-line detail for the verdict. */
    @FunctionalInterface
    public interface Body {
        String run(Intracomm world, String[] args) throws Exception;
    }

    private MpiTestProgram() {
    }

    /** How a rank ends after a successful body. */
    public enum Finish {
        /** {@code MPI.Finalize()}: the normal end. */
        FINALIZE,
        /**
         * Exit without finalizing: for tests in which a peer has died, where finalize would wait
         * for it forever.
         */
        EXIT
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
        MPI.InitThread(args, required);
        runInitialised(args, body, Finish.FINALIZE);
    }

    private static void runInitialised(String[] rest, Body body, Finish finish) throws Exception {
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        String detail;
        try {
            detail = body.run(world, rest);
        } catch (Throwable t) {
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            System.out.println(VERDICT + " " + rank + " FAIL " + oneLine(String.valueOf(t)));
            System.out.flush();
            System.err.println("rank " + rank + ": " + trace);
            System.err.flush();
            world.abort(1);
            return;
        }
        System.out.println(VERDICT + " " + rank + " OK " + oneLine(detail));
        System.out.flush();
        if (finish == Finish.EXIT) {
            Runtime.getRuntime().halt(0);
        }
        MPI.Finalize();
    }

    private static String oneLine(String text) {
        return text == null ? "" : text.replace('\n', ' ').replace('\r', ' ');
    }
}
