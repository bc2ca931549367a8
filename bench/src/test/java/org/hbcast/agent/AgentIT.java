package org.hbcast.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.MpiTestProgram;
import org.junit.jupiter.api.Test;

/**
 * The agent on a program that knows nothing of hbcast ({@link PlainMpiProgram}), started with its
 * own classpath (its classes, the test frame, mpi.jar) and {@code scripts/hbrun --agent}: the data
 * is right, the supported calls went to hbcast and the rest to Open MPI, as each rank reports at
 * Finalize.
 */
class AgentIT {
    /**
     * Calls the program makes: 25 names and ints, 2 large and 40 on fresh communicators go to
     * hbcast; a heap buffer, a derived datatype and an inter-communicator go to Open MPI.
     */
    private static final int REDIRECTED = 25 + 2 + 40;

    private static final int PASSED = 3;
    private static final Pattern REPORT =
            Pattern.compile("hbcast agent: (\\d+) bcast calls redirected, (\\d+) passed to Open MPI");

    private static String programClasspath() throws URISyntaxException {
        String mpiJar = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("org/open-mpi/mpi"))
                .findFirst()
                .orElseThrow();
        return String.join(File.pathSeparator, location(PlainMpiProgram.class), location(MpiTestProgram.class), mpiJar);
    }

    private static String location(Class<?> c) throws URISyntaxException {
        return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString();
    }

    /** Every rank checked every call, each reported where its calls went, nothing was left behind. */
    private static void assertRedirected(MpiOutcome out, int ranks) {
        out.assertAllRanksOk().assertCasesOnEveryRank(REDIRECTED + PASSED);
        Matcher m = REPORT.matcher(out.output());
        int reports = 0;
        while (m.find()) {
            assertEquals(REDIRECTED, Integer.parseInt(m.group(1)), out.describe("redirected"));
            assertEquals(PASSED, Integer.parseInt(m.group(2)), out.describe("passed"));
            reports++;
        }
        assertEquals(ranks, reports, out.describe("one report per rank"));
        out.assertNoLeakedSegments();
    }

    @Test
    void anUnmodifiedProgramOnOneNodeOfFour() throws Exception {
        MpiOutcome out = MpiLaunch.program(PlainMpiProgram.class)
                .ranks(4)
                .classpath(programClasspath())
                .agent()
                .env("HBCAST_AGENT_REPORT", "1")
                .run();
        assertRedirected(out, 4);
    }

    @Test
    void anUnmodifiedProgramOnATestBedOfTwoHosts() throws Exception {
        assertRedirected(
                MpiLaunch.program(PlainMpiProgram.class)
                        .testBed(2, 2)
                        .classpath(programClasspath())
                        .agent()
                        .env("HBCAST_AGENT_REPORT", "1")
                        .run(),
                4);
    }

    @Test
    void anUnmodifiedProgramOnTwoVirtualNodes() throws Exception {
        assertRedirected(
                MpiLaunch.program(PlainMpiProgram.class)
                        .nodeSizes("2,2")
                        .classpath(programClasspath())
                        .agent()
                        .env("HBCAST_AGENT_REPORT", "1")
                        .run(),
                4);
    }
}
