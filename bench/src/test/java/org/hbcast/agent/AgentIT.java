package org.hbcast.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        return programClasspath(PlainMpiProgram.class);
    }

    private static String programClasspath(Class<?> program) throws URISyntaxException {
        String mpiJar = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> e.contains("org/open-mpi/mpi"))
                .findFirst()
                .orElseThrow();
        return String.join(File.pathSeparator, location(program), location(MpiTestProgram.class), mpiJar);
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

    /** A still-waiting line of a rank that waited for the late root. */
    private static final Pattern STILL_WAITING = Pattern.compile(
            "hbcast bcast on rank (\\d+): call 3 still waiting after \\d+\\.\\d s for the call's header from root 0\\b");

    private static final Pattern CANNOT_SET_UP =
            Pattern.compile("hbcast agent on rank (\\d+): hbcast could not be set up on a communicator");

    private static int[] perRank(Pattern p, String output, int ranks) {
        int[] lines = new int[ranks];
        Matcher m = p.matcher(output);
        while (m.find()) {
            lines[Integer.parseInt(m.group(1))]++;
        }
        return lines;
    }

    /**
     * Open MPI waits for a late root; so must the agent's broadcasts, even where the environment asks
     * hbcast to fail on a time-out (the program was written for Open MPI). Each waiting rank says so.
     */
    @Test
    void aLateRootIsWaitedForAsOpenMpiWaitsWhateverTheEnvironmentSays() throws Exception {
        MpiOutcome out = MpiLaunch.program(LateRootProgram.class)
                .ranks(4)
                .classpath(programClasspath())
                .agent()
                .args("late=8")
                .env("HBCAST_TIMEOUT_S", "3")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .env("HBCAST_AGENT_REPORT", "1")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(4);
        int[] lines = perRank(STILL_WAITING, out.output(), 4);
        assertEquals(0, lines[0], out.describe("the root waited for nobody"));
        for (int r = 1; r < 4; r++) {
            // 8 s late against a 3 s timeout: a line at 3 s and one at 6 s, give or take the start-up.
            assertTrue(lines[r] >= 1 && lines[r] <= 3, out.describe("rank " + r + " printed " + lines[r] + " lines"));
            assertTrue(out.figure(r, "lateSeconds") > 3, out.describe("rank " + r + " did not wait"));
        }
        Matcher m = REPORT.matcher(out.output());
        while (m.find()) {
            assertEquals(4, Integer.parseInt(m.group(1)), out.describe("every call went to hbcast"));
        }
        out.assertNoLeakedSegments();
    }

    /**
     * A {@code create} that fails on every rank (here a value {@code BcastOptions} rejects) leaves the
     * communicator to Open MPI: every later call too, the data right, one line per rank saying why,
     * and no retried {@code create}.
     */
    @Test
    void aFailedCreatePassesTheCommunicatorsCallsToOpenMpiSayingWhyOnce() throws Exception {
        MpiOutcome out = MpiLaunch.program(PlainMpiProgram.class)
                .ranks(4)
                .classpath(programClasspath())
                .agent()
                .env("HBCAST_RADIX", "1")
                .env("HBCAST_AGENT_REPORT", "1")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(REDIRECTED + PASSED);
        Matcher m = REPORT.matcher(out.output());
        int reports = 0;
        while (m.find()) {
            assertEquals(0, Integer.parseInt(m.group(1)), out.describe("redirected"));
            assertEquals(REDIRECTED + PASSED, Integer.parseInt(m.group(2)), out.describe("passed"));
            reports++;
        }
        assertEquals(4, reports, out.describe("one report per rank"));
        int[] lines = perRank(CANNOT_SET_UP, out.output(), 4);
        for (int r = 0; r < 4; r++) {
            assertEquals(1, lines[r], out.describe("rank " + r + "'s lines saying why"));
        }
        assertTrue(out.output().contains("HBCAST_RADIX"), out.describe("the reason names the setting"));
    }

    /** {@code Comm.disconnect()} closes the communicator's instance, as {@code free} does: its shared memory goes. */
    @Test
    void disconnectClosesTheCommunicatorsInstance() throws Exception {
        MpiOutcome out = MpiLaunch.program(LateRootProgram.class)
                .ranks(4)
                .classpath(programClasspath())
                .agent()
                .args("disconnect")
                .env("HBCAST_AGENT_REPORT", "1")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2);
        for (int r = 0; r < 4; r++) {
            double before = out.figure(r, "shmBefore");
            assertTrue(out.figure(r, "shmDuring") > before, out.describe("rank " + r + ": the instance maps nothing"));
            assertEquals(
                    before, out.figure(r, "shmAfter"), out.describe("rank " + r + ": still mapped after disconnect"));
        }
        out.assertNoLeakedSegments();
    }

    /**
     * {@code Comm.iBcast} of an unmodified program goes to hbcast and its requests test, wait and
     * wait-all through hbcast; every byte right, on one node and on two virtual nodes.
     */
    @Test
    void anUnmodifiedProgramsIBcastsOnOneNodeAndOnVirtualNodes() throws Exception {
        for (String nodes : new String[] {"4", "2,2"}) {
            MpiLaunch launch = MpiLaunch.program(IBcastProgram.class)
                    .classpath(programClasspath(IBcastProgram.class))
                    .agent()
                    .env("HBCAST_AGENT_REPORT", "1");
            MpiOutcome out = (nodes.equals("4") ? launch.ranks(4) : launch.nodeSizes(nodes)).run();
            out.assertAllRanksOk().assertCasesOnEveryRank(3 * 4);
            Matcher m = REPORT.matcher(out.output());
            int reports = 0;
            while (m.find()) {
                assertEquals(IBcastProgram.redirected(4), Integer.parseInt(m.group(1)), out.describe("redirected"));
                assertEquals(0, Integer.parseInt(m.group(2)), out.describe("passed"));
                reports++;
            }
            assertEquals(4, reports, out.describe("one report per rank"));
            out.assertNoLeakedSegments();
        }
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
