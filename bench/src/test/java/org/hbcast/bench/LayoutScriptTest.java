package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.hbcast.testing.MpiLaunch;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The layouts of scripts/compare, scripts/ocean and scripts/tune, parsed by scripts/lib/layout.sh:
 * ranks, virtual nodes, test-bed hosts and slots, placement; and the error a bad one gets.
 */
class LayoutScriptTest {
    /** Runs parse_layout in bash; returns its exit code, then "np nodes hosts slots map place" or the error. */
    private static List<String> parse(String layout) throws IOException, InterruptedException {
        String script = ". scripts/lib/common.sh; . scripts/lib/layout.sh; parse_layout \"$1\";"
                + " echo \"$LAYOUT_NP|$LAYOUT_NODES|$LAYOUT_BED_HOSTS|$LAYOUT_BED_SLOTS|$LAYOUT_MAP|${LAYOUT_PLACE[*]}\"";
        Process p = new ProcessBuilder("bash", "-c", script, "test", layout)
                .directory(MpiLaunch.repositoryRoot().toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        return List.of(Integer.toString(p.waitFor()), out);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "node4; 4|||||",
                "virtual2x2; 4|2,2||||--nodes 2,2",
                "virtual8,3,3; 14|8,3,3||||--nodes 8,3,3",
                "testbed2x2; 4||2|2||",
                "testbed3x4,2,2; 8||3|4,2,2||",
                "testbed3x8,3,3; 14||3|8,3,3||",
                "testbed4x2-rr; 8||4|2|node|",
                "testbed8x1; 8||8|1||"
            })
    void goodLayouts(String layout, String expected) throws Exception {
        List<String> r = parse(layout);
        assertEquals("0", r.get(0), r.get(1));
        assertEquals(expected, r.get(1));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = ';',
            value = {
                "testbed3x4,2; names 3 hosts but 2 slot counts",
                "testbed3x4,2,2-rr; round-robin placement (-rr) takes even hosts",
                "node0; is none of nodeN",
                "cluster; is none of nodeN",
                "testbed2x; is none of nodeN"
            })
    void badLayoutsAreRefusedByName(String layout, String message) throws Exception {
        List<String> r = parse(layout);
        assertEquals("2", r.get(0), r.get(1));
        assertTrue(r.get(1).contains("layout '" + layout + "'") && r.get(1).contains(message), r.get(1));
    }
}
