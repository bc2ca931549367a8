package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The main job's two parts: the user's settings on one node, the bed's own cut-down ones. */
class MainJobTest {
    private static final Path ROOT = Path.of("/repo");

    private static CompareSettings main() {
        Settings s = new Settings();
        s.layout = CompareSettings.MAIN;
        return s.build();
    }

    @Test
    void oneNodeThenTheShapedBed() {
        List<CompareSettings> parts = MainJob.parts(main(), ROOT, true);
        assertEquals(2, parts.size());
        CompareSettings node = parts.get(0);
        assertEquals("node4", node.layout());
        assertEquals(ROOT.resolve("results/compare-main/node4"), node.outIn(ROOT));
        assertEquals(ROOT.resolve("docs/results/compare/compare-node4.png"), node.plotIn(ROOT));
        assertEquals(3, node.rounds());
        assertEquals("1:67108864", node.probeSizes());
        assertEquals(List.of("-m", "1:67108864"), node.osu());
        assertEquals(List.of(), node.probeConfigs());

        CompareSettings bed = parts.get(1);
        assertEquals("testbed3x4,2,2", bed.layout());
        assertEquals("1gbit", bed.rate());
        assertEquals(1, bed.rounds());
        assertEquals("65536:8388608", bed.probeSizes());
        assertEquals(20, bed.probeCalls());
        assertEquals(7, bed.probeBlocks());
        assertEquals(
                List.of(Configuration.TUNED, Configuration.TUNED_KNOMIAL, Configuration.HBCAST), bed.probeConfigs());
        assertEquals(List.of("-m", "65536:16777216", "-i", "10", "-x", "2"), bed.osu());
        assertEquals(ROOT.resolve("results/compare-main/testbed3x4,2,2"), bed.outIn(ROOT));
        assertEquals(List.of(Configuration.values()), bed.configs());
        assertEquals(3600, bed.timeoutSeconds());
    }

    @Test
    void withoutABedOneNodeOnly() {
        assertEquals(
                List.of("node4"),
                MainJob.parts(main(), ROOT, false).stream()
                        .map(CompareSettings::layout)
                        .toList());
    }

    @Test
    void theUsersChoicesReachTheParts() {
        Settings s = new Settings();
        s.layout = CompareSettings.MAIN;
        s.rate = "500mbit";
        s.rounds = 1;
        s.configs = List.of(Configuration.TUNED, Configuration.HBCAST);
        s.impls = "auto";
        s.timeout = 60;
        s.out = Path.of("/tmp/m");
        s.probeSizes = "0";
        s.osu = List.of("-m", "1:4096");
        List<CompareSettings> parts = MainJob.parts(s.build(), ROOT, true);
        assertEquals(Path.of("/tmp/m/node4"), parts.get(0).outIn(ROOT));
        assertEquals("0", parts.get(0).probeSizes());
        assertEquals(List.of("-m", "1:4096"), parts.get(0).osu());
        assertEquals("500mbit", parts.get(1).rate());
        for (CompareSettings part : parts) {
            assertEquals(List.of(Configuration.TUNED, Configuration.HBCAST), part.configs());
            assertEquals("auto", part.impls());
            assertEquals(60, part.timeoutSeconds());
        }
        assertEquals(Path.of("/tmp/m/testbed3x4,2,2"), parts.get(1).outIn(ROOT));
    }

    @Test
    void onlyTheMainJobHasParts() {
        assertThrows(IllegalArgumentException.class, () -> MainJob.parts(new Settings().build(), ROOT, true));
    }
}
