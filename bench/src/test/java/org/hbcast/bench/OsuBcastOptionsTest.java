package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** osu_bcast's -m forms: MAX, MIN:MAX, MIN: and :MAX. */
class OsuBcastOptionsTest {
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
