package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Reading Open MPI 4.1.4's {@code coll_base_verbose 10} output: samples of real launches
 * ({@code scripts/hbrun -n 4 --mca coll_base_verbose 10 --mca coll_han_priority 100
 * org.hbcast.bench.TopologyReport}, and the same with adapt and on a 2x2 test bed), trimmed to the
 * selection lines, and lines made up for the cases those do not show.
 */
class CollSelectionTest {
    private static List<String> sample(String name) throws IOException {
        try (InputStream in = CollSelectionTest.class.getResourceAsStream("coll-verbose-" + name + ".log")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }

    @Test
    void hanDisqualifiesItselfOnOneHostAndTunedWinsEverywhere() throws IOException {
        CollSelection s = CollSelection.read(sample("han-node4"));
        assertEquals(4, s.winners().size(), s.winners().toString());
        assertTrue(s.selectedEverywhere("tuned"));
        assertFalse(s.selectedEverywhere("han"));
        assertEquals(
                "coll/han on MPI_COMM_WORLD: comm has only local processes; disqualifying myself",
                s.whyNot("han", "probe.log"));
    }

    @Test
    void adaptWithPriority100WinsEverywhere() throws IOException {
        CollSelection s = CollSelection.read(sample("adapt-node4"));
        assertEquals(4, s.winners().size());
        assertTrue(s.selectedEverywhere("adapt"));
        assertFalse(s.selectedEverywhere("tuned"));
        assertEquals(
                "Open MPI selected adapt, not tuned, for MPI_COMM_WORLD (see probe.log)",
                s.whyNot("tuned", "probe.log"));
    }

    @Test
    void hanWinsAcrossHostsOfATestBed() throws IOException {
        CollSelection s = CollSelection.read(sample("han-testbed2x2"));
        assertEquals(4, s.winners().size());
        assertTrue(s.winners().keySet().stream().allMatch(p -> p.matches("\\[hb[0-9a-f]{6}-h[01]:\\d+\\]")));
        assertTrue(s.selectedEverywhere("han"));
    }

    @Test
    void theCommunicatorsAfterTheWorldDoNotCount() {
        List<String> log = List.of(
                "[a:1] coll:base:comm_select: new communicator: MPI_COMM_WORLD (cid 0)",
                "[a:1] coll:base:comm_select: selecting       tuned, priority  30, Enabled",
                "[a:1] coll:base:comm_select: new communicator: MPI_COMM_SELF (cid 1)",
                "[a:1] coll:base:comm_select: selecting        self, priority  75, Enabled",
                "[a:1] coll:base:comm_select: new communicator:  (cid 3)",
                "[a:1] coll:base:comm_select: selecting         han, priority 100, Enabled");
        CollSelection s = CollSelection.read(log);
        assertTrue(s.selectedEverywhere("tuned"));
    }

    @Test
    void disabledComponentsAndEqualPrioritiesAsOpenMpiEnablesThem() {
        List<String> log = List.of(
                "[a:1] coll:base:comm_select: new communicator: MPI_COMM_WORLD (cid 0)",
                "[a:1] coll:base:comm_select: selecting      libnbc, priority  10, Enabled",
                "[a:1] coll:base:comm_select: selecting       basic, priority  10, Enabled",
                "[a:1] coll:base:comm_select: selecting          sm, priority  90, Disabled");
        CollSelection s = CollSelection.read(log);
        // Equal priorities: the later one was enabled over the earlier; a disabled one never wins.
        assertTrue(s.selectedEverywhere("basic"));
    }

    @Test
    void everyProcessMustSelectIt() {
        List<String> log = List.of(
                "[a:1] coll:base:comm_select: new communicator: MPI_COMM_WORLD (cid 0)",
                "[b:2] coll:base:comm_select: new communicator: MPI_COMM_WORLD (cid 0)",
                "[a:1] coll:base:comm_select: selecting         han, priority 100, Enabled",
                "[b:2] coll:base:comm_select: selecting       tuned, priority  30, Enabled");
        CollSelection s = CollSelection.read(log);
        assertFalse(s.selectedEverywhere("han"));
        assertEquals(Set.of("[a:1]", "[b:2]"), s.winners().keySet());
        assertEquals(
                "Open MPI selected han for MPI_COMM_WORLD in 1 of 2 processes only (see x.log)",
                s.whyNot("han", "x.log"));
    }

    @Test
    void aLogWithoutSelectionsSelectsNothing() {
        CollSelection s = CollSelection.read(List.of("mpirun: something went wrong", ""));
        assertFalse(s.selectedEverywhere("tuned"));
        assertEquals("Open MPI did not select tuned for MPI_COMM_WORLD (see p.log)", s.whyNot("tuned", "p.log"));
    }

    @Test
    void aComponentThatAskedToBePickedButLostIsToldByTheWinner() {
        List<String> log = List.of(
                "[a:1] coll:base:comm_select: new communicator: MPI_COMM_WORLD (cid 0)",
                "[a:1] coll:adapt:comm_query (0/MPI_COMM_WORLD): pick me! pick me!",
                "[a:1] coll:base:comm_select: selecting       adapt, priority   0, Enabled",
                "[a:1] coll:base:comm_select: selecting       tuned, priority  30, Enabled");
        assertEquals(
                "Open MPI selected tuned, not adapt, for MPI_COMM_WORLD (see p.log)",
                CollSelection.read(log).whyNot("adapt", "p.log"));
    }
}
