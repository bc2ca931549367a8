package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.BcastOptions.TreeShape;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** osu_bcast's -m forms: MAX, MIN:MAX, MIN: and :MAX; and the parts of an implementation's name. */
class OsuBcastOptionsTest {
    @ParameterizedTest(name = "--impl {0}")
    @CsvSource({
        "hierarchical/fanout/128K, HIERARCHICAL, FANOUT, , 131072",
        "hierarchical/ring/chain/64K, HIERARCHICAL, RING, CHAIN, 65536",
        "knomial/two-tree, KNOMIAL, AUTO, TWO_TREE, 0",
        "auto/4096, AUTO, AUTO, , 4096"
    })
    void implementationParts(String impl, Algorithm algorithm, IntraNode intra, TreeShape inter, int chunk) {
        BcastOptions c = OsuBcast.options(new CommandLine(new OsuBcast()), impl);
        assertEquals(algorithm, c.algorithm());
        assertEquals(intra, c.intra());
        assertEquals(inter, c.inter());
        assertEquals(chunk, c.chunkBytes());
    }

    @ParameterizedTest(name = "--impl {0}")
    @ValueSource(
            strings = {
                "hierarchical/fanout/12Q",
                "hierarchical/sideways",
                "knomial/100",
                "knomial/8G",
                "hierarchical/",
                "auto//fanout"
            })
    void badImplementationsNameThemselves(String impl) {
        CommandLine.ParameterException e = assertThrows(
                CommandLine.ParameterException.class, () -> OsuBcast.options(new CommandLine(new OsuBcast()), impl));
        assertTrue(e.getMessage().startsWith("--impl " + impl), e.getMessage());
    }

    @ParameterizedTest(name = "-m {0}")
    @CsvSource({"128, 1, 128", "2:128, 2, 128", "2:, 2, 1048576", ":64, 1, 64", "1:67108864, 1, 67108864", "3:3, 3, 3"})
    void sizeForms(String spec, long min, long max) {
        assertArrayEquals(new long[] {min, max}, OsuBcast.parseSizes(spec));
    }

    @ParameterizedTest(name = "-m {0}")
    @ValueSource(strings = {"", ":", "0:8", "8:4", "1:2:3", "x", "1:y", "-1", "4294967296", "0"})
    void badSizesNameTheOption(String spec) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> OsuBcast.parseSizes(spec));
        assertTrue(e.getMessage().startsWith("-m takes"), e.getMessage());
    }
}
