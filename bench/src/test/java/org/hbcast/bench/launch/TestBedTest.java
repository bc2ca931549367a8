package org.hbcast.bench.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.hbcast.bench.experiment.Layout;
import org.junit.jupiter.api.Test;

/** The scripts/testbed up command a layout's bed is brought up with. */
class TestBedTest {
    private static final Path SCRIPT = Path.of("/r/scripts/testbed");

    @Test
    void hostsSlotsRateAndCores() {
        assertEquals(
                List.of(
                        "/r/scripts/testbed",
                        "up",
                        "--hosts",
                        "3",
                        "--slots",
                        "4,2,2",
                        "--netem",
                        "rate 1gbit",
                        "--own-cores"),
                TestBed.upCommand(SCRIPT, Layout.parse("testbed3x4,2,2"), "1gbit", true));
        assertEquals(
                List.of("/r/scripts/testbed", "up", "--hosts", "4", "--slots", "2"),
                TestBed.upCommand(SCRIPT, Layout.parse("testbed4x2-rr"), null, false));
    }

    @Test
    void onlyABedHasOne() {
        assertThrows(
                IllegalArgumentException.class, () -> TestBed.upCommand(SCRIPT, Layout.parse("node4"), null, false));
    }
}
