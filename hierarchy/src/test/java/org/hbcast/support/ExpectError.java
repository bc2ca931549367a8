package org.hbcast.support;

import mpi.MPIException;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;

/** For MPI test programs: runs a call that must fail with an {@link MPIException} containing a fragment. */
public final class ExpectError {
    /** A call that may throw. */
    public interface Call {
        void run() throws Exception;
    }

    private ExpectError() {}

    /** Runs {@code call}; returns its error message, or throws naming what was expected instead. */
    public static String of(String fragment, Call call) throws Exception {
        try {
            call.run();
        } catch (MPIException e) {
            if (e.getMessage() == null || !e.getMessage().contains(fragment)) {
                throw new AssertionError("expected an error containing '" + fragment + "', got: " + e.getMessage(), e);
            }
            return e.getMessage();
        }
        throw new AssertionError("expected an error containing '" + fragment + "', but the call succeeded");
    }

    /** {@link #into} as a case of a list ({@link Ranks#checkAll}). */
    public static Ranks.Named named(RankReport report, String caseName, String fragment, Call call) {
        return Ranks.named(caseName, () -> report.note(caseName, of(fragment, call)));
    }

    /** {@link #of} as one case of {@code report}, the error's message kept as the note {@code caseName}. */
    public static void into(RankReport report, String caseName, String fragment, Call call) throws Exception {
        report.check(caseName, () -> report.note(caseName, of(fragment, call)));
    }
}
