package org.hbcast.bench.ocean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.hbcast.BcastOptions.Algorithm;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.ParameterException;

/** The ocean benchmark's options: defaults, and a clear error for each bad one. */
class OceanModelOptionsTest {

    private static OceanModel parse(String... args) {
        var cl = OceanModel.commandLine(0);
        cl.parseArgs(args);
        return cl.getCommand();
    }

    private static String settingsError(int ranks, String... args) {
        return assertThrows(ParameterException.class, () -> parse(args).settings(ranks))
                .getMessage();
    }

    @Test
    void defaultsAreValidOnFourRanks() {
        OceanSettings s = parse().settings(4);
        assertEquals(512, s.nx());
        assertEquals(5, s.forcingEvery());
        assertEquals(
                List.of("native", "hierarchical"),
                List.copyOf(parse().algorithms().keySet()));
        assertEquals(Algorithm.HIERARCHICAL, parse().algorithms().get("hierarchical"));
    }

    @Test
    void gridSmallerThanTheStripCount() {
        String m = settingsError(4, "--nx", "16", "--ny", "3");
        assertTrue(m.contains("3 rows (--ny) but 4 ranks"), m);
    }

    @Test
    void forcingIntervalBelowOne() {
        assertTrue(settingsError(2, "-K", "0").contains("--forcing-every (K) must be at least 1"));
    }

    @Test
    void negativeSteps() {
        assertTrue(settingsError(2, "--steps", "-1").contains("--steps must be 0 or more, not -1"));
    }

    @Test
    void unknownImplementation() {
        String m = assertThrows(
                        ParameterException.class,
                        () -> parse("--impl", "native,ring").algorithms())
                .getMessage();
        assertTrue(m.contains("unknown implementation 'ring'"), m);
    }

    @Test
    void repeatedImplementation() {
        String m = assertThrows(
                        ParameterException.class,
                        () -> parse("--impl", "native,native").algorithms())
                .getMessage();
        assertTrue(m.contains("'native' twice"), m);
    }

    @Test
    void unstableCourantNumber() {
        String m = settingsError(1, "--cfl", "0.75");
        assertTrue(m.contains("cfl 0.750 is unstable"), m);
    }

    @Test
    void ioRankOutsideTheJob() {
        assertTrue(settingsError(4, "--io-rank", "4").contains("--io-rank 4 is outside 0..3"));
    }

    @Test
    void gridTooLargeForOneBroadcast() {
        String m = settingsError(1, "--nx", "20000", "--ny", "20000");
        assertTrue(m.contains("more than one broadcast can carry"), m);
    }

    @Test
    void otherBadNumbers() {
        assertTrue(settingsError(1, "--repeat", "0").contains("--repeat must be at least 1"));
        assertTrue(settingsError(1, "--warmup", "-3").contains("--warmup must be 0 or more"));
        assertTrue(settingsError(1, "--dx-km", "0").contains("--dx-km must be a positive"));
        assertTrue(settingsError(1, "--nx", "1").contains("at least 2 x 2 cells"));
    }

    @Test
    void notANumberIsAParseError() {
        assertThrows(ParameterException.class, () -> parse("--steps", "many"));
    }
}
