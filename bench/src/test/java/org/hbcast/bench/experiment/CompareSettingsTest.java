package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** compare's options, checked whole: every bad one refused by name before anything runs. */
class CompareSettingsTest {
    private static final Path ROOT = Path.of("/repo");

    private static String refused(Consumer<Settings> change) {
        Settings s = new Settings();
        change.accept(s);
        return assertThrows(IllegalArgumentException.class, s::build).getMessage();
    }

    @Test
    void theDefaults() {
        CompareSettings s = new Settings().build();
        assertEquals(List.of("-m", "1:67108864"), s.osu());
        assertEquals(ROOT.resolve("results/compare-node4"), s.outIn(ROOT));
        assertEquals(ROOT.resolve("docs/results/compare/compare-node4.png"), s.plotIn(ROOT));
        assertTrue(s.probes());
        assertFalse(s.isMain());
        assertEquals(Layout.parse("node4"), s.parsedLayout());
    }

    @Test
    void givenPlacesWin() {
        Settings s = new Settings();
        s.out = Path.of("/tmp/o");
        s.plot = Path.of("/tmp/p.png");
        assertEquals(Path.of("/tmp/o"), s.build().outIn(ROOT));
        assertEquals(Path.of("/tmp/p.png"), s.build().plotIn(ROOT));
    }

    @Test
    void numbersMustBePositive() {
        assertEquals("--rounds must be a positive whole number, not '0'", refused(s -> s.rounds = 0));
        assertEquals("--timeout must be a positive whole number, not '-1'", refused(s -> s.timeout = -1));
        assertTrue(refused(s -> s.probeCalls = 0).startsWith("--probe-calls"));
        assertTrue(refused(s -> s.probeBlocks = 0).startsWith("--probe-blocks"));
    }

    @Test
    void probeSizes() {
        assertFalse(withProbeSizes("0").probes());
        assertTrue(withProbeSizes("1024:4096").probes());
        assertTrue(withProbeSizes("65536").probes());
        for (String bad : new String[] {"", "1:2:3", "x", "0:4", "8:4", "1:4294967296", "1K:1M"}) {
            assertTrue(
                    refused(s -> s.probeSizes = bad).startsWith("--probe-sizes takes [MIN:]MAX in bytes, or 0"), bad);
        }
    }

    private static CompareSettings withProbeSizes(String sizes) {
        Settings s = new Settings();
        s.probeSizes = sizes;
        return s.build();
    }

    @Test
    void osuOptionsThatTheRunnerOwnsAreRefused() {
        assertEquals(
                "choose hbcast's implementations with --impls, not --impl",
                refused(s -> s.osu = List.of("-m", "1:4", "--impl", "native")));
        assertEquals(
                "choose hbcast's implementations with --impls, not --impl",
                refused(s -> s.osu = List.of("--impl=auto")));
        assertEquals("--json: the runner writes the JSON files itself", refused(s -> s.osu = List.of("--json", "x")));
        assertEquals("--csv=x: the runner writes the JSON files itself", refused(s -> s.osu = List.of("--csv=x")));
        Settings s = new Settings();
        s.osu = List.of("-m", "1:4096", "-i", "10");
        assertEquals(List.of("-m", "1:4096", "-i", "10"), s.build().osu());
    }

    @Test
    void layoutsAndRates() {
        assertTrue(refused(s -> s.layout = "node0").startsWith("layout 'node0' is none of"));
        assertEquals("--rate 1gbit shapes a test bed's links: give a testbed layout", refused(s -> {
            s.layout = "virtual2x2";
            s.rate = "1gbit";
        }));
        Settings bed = new Settings();
        bed.layout = "testbed3x4,2,2";
        bed.rate = "1gbit";
        assertEquals("1gbit", bed.build().rate());
        bed.rate = " ";
        assertNull(bed.build().rate());
    }

    @Test
    void theMainJobTakesNoPlot() {
        Settings main = new Settings();
        main.layout = CompareSettings.MAIN;
        assertTrue(main.build().isMain());
        assertThrows(IllegalStateException.class, () -> main.build().parsedLayout());
        main.rate = "500mbit";
        assertEquals("500mbit", main.build().rate());
        main.plot = Path.of("x.png");
        assertTrue(assertThrows(IllegalArgumentException.class, main::build)
                .getMessage()
                .startsWith("--plot names one plot"));
    }

    @Test
    void autoIsATestBedWhereOneCanBeMade() {
        Settings auto = new Settings();
        auto.layout = CompareSettings.AUTO;
        assertEquals("testbed2x2", auto.build().resolved(true).layout());
        assertEquals("virtual2x2", auto.build().resolved(false).layout());
        assertThrows(IllegalStateException.class, () -> auto.build().parsedLayout());
        auto.rate = "1gbit";
        assertEquals("1gbit", auto.build().resolved(true).rate());
        assertThrows(IllegalArgumentException.class, () -> auto.build().resolved(false));
        assertEquals(
                ROOT.resolve("results/compare-testbed2x2"),
                auto.build().resolved(true).outIn(ROOT));
    }

    @Test
    void listsAndImpls() {
        assertEquals("--configs names no configuration", refused(s -> s.configs = List.of()));
        assertTrue(refused(s -> s.impls = "").startsWith("--impls needs"));
        assertTrue(refused(s -> s.impls = "native, auto").startsWith("--impls needs"));
    }
}
