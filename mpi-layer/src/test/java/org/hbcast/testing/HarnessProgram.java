package org.hbcast.testing;

/**
 * The harness's own MPI test program: reports on purpose what {@link HarnessMpiTest} expects.
 * {@code ok}: rank r passes r+1 cases and reports figures {@code rank}, {@code half} and note
 * {@code awkward}; {@code carry-on}: rank 1 also records a failed case and carries on; {@code throw}:
 * rank 1 throws in a case, the others wait at a barrier until the abort ends them.
 */
public final class HarnessProgram {
    /** A note that JSON must escape. */
    static final String AWKWARD = "\"quoted\"\n\ttabbed \\ back-slashed \u00e9";

    private HarnessProgram() {}

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "ok";
        MpiTestProgram.run(args, (world, rest, report) -> {
            int rank = world.getRank();
            for (int i = 0; i <= rank; i++) {
                report.pass("case " + i);
            }
            report.figure("rank", rank).figure("half", rank / 2.0).note("awkward", AWKWARD);
            if (rank == 1 && mode.equals("carry-on")) {
                report.fail("second", "wrong byte");
            }
            if (mode.equals("throw")) {
                if (rank == 1) {
                    report.check("planted", () -> {
                        throw new AssertionError("planted failure");
                    });
                }
                world.barrier();
            }
            return mode;
        });
    }
}
