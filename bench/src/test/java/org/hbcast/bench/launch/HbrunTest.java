package org.hbcast.bench.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.hbcast.bench.experiment.Layout;
import org.junit.jupiter.api.Test;

/** scripts/hbrun command lines: ranks, placement, time limit, then the program. */
class HbrunTest {
    private static final Path HBRUN = Path.of("/repo/scripts/hbrun");

    @Test
    void oneNode() {
        assertEquals(
                List.of("/repo/scripts/hbrun", "-n", "4", "--timeout", "60", "Main", "-x"),
                new Hbrun(HBRUN, Layout.parse("node4"), null, 60).command(List.of("Main", "-x")));
    }

    @Test
    void virtualNodesWithoutATimeLimit() {
        assertEquals(
                List.of("/repo/scripts/hbrun", "-n", "14", "--nodes", "8,3,3", "--mca", "k", "v", "Main"),
                new Hbrun(HBRUN, Layout.parse("virtual8,3,3"), null, 0).command(List.of("--mca", "k", "v", "Main")));
    }

    @Test
    void aRoundRobinBed() {
        assertEquals(
                List.of(
                        "/repo/scripts/hbrun",
                        "-n",
                        "8",
                        "--testbed",
                        "hb123456",
                        "--map-by",
                        "node",
                        "--timeout",
                        "3600",
                        "Main"),
                new Hbrun(HBRUN, Layout.parse("testbed4x2-rr"), "hb123456", 3600).command(List.of("Main")));
    }

    @Test
    void theScriptIsTheRepositorys() {
        assertEquals(
                Path.of("/r/scripts/hbrun"),
                Hbrun.of(Path.of("/r"), Layout.parse("node1"), null, 0).script());
    }
}
