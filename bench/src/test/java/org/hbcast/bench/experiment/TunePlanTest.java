package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** tune's launches: where the calibration is measured, then the sweep. */
class TunePlanTest {
    private static final Path SCRATCH = Path.of("/tmp/s");
    private static final Path DIR = Path.of("/d");

    private static List<String> program(TunePlan plan, int step) {
        return plan.steps().get(step).program();
    }

    @Test
    void byDefaultTheTuningLaunchCalibrates() {
        TunePlan plan = new TunePlan(true, 0, List.of(), null, List.of(), SCRATCH);
        assertEquals(1, plan.steps().size());
        assertEquals(
                "tuning, calibrating before and after the sweep in the same launch",
                plan.steps().get(0).title());
        assertEquals(List.of("org.hbcast.bench.tune.Tuner", "--calibrate=", "--validate"), program(plan, 0));
        assertNull(plan.calibrationFile());
    }

    @Test
    void calibrateArgsAndADirectory() {
        TunePlan plan = new TunePlan(true, 0, List.of("--passes", "2"), DIR, List.of("--sizes", "64K:64M"), SCRATCH);
        assertEquals(
                List.of(
                        "org.hbcast.bench.tune.Tuner",
                        "--calibrate=--passes 2",
                        "--out",
                        "/d/tuning.json",
                        "--sizes",
                        "64K:64M"),
                program(plan, 0));
        assertEquals(DIR.resolve("calibration.json"), plan.calibrationFile());
    }

    @Test
    void oneLaunchOfItsOwn() {
        TunePlan plan = new TunePlan(true, 1, List.of("-x"), DIR, List.of(), SCRATCH);
        assertEquals(
                List.of("calibrating", "tuning"),
                plan.steps().stream().map(TunePlan.Step::title).toList());
        assertEquals(
                List.of("org.hbcast.bench.tune.Calibrate", "--out", "/d/calibration.json", "-x"), program(plan, 0));
        assertEquals(List.of("org.hbcast.bench.tune.Tuner", "--out", "/d/tuning.json", "--validate"), program(plan, 1));
    }

    @Test
    void severalLaunchesMergedByTheLast() {
        TunePlan plan = new TunePlan(true, 3, List.of("-x"), null, List.of(), SCRATCH);
        List<TunePlan.Step> steps = plan.steps();
        assertEquals(
                List.of(
                        "calibrating: launch 1 of 3",
                        "calibrating: launch 2 of 3",
                        "calibrating: launch 3 of 3, merged with the others",
                        "tuning"),
                steps.stream().map(TunePlan.Step::title).toList());
        assertEquals(
                List.of("org.hbcast.bench.tune.Calibrate", "--passes", "1", "--out", "/tmp/s/launch-1.json", "-x"),
                steps.get(0).program());
        assertEquals(true, steps.get(0).quiet());
        assertEquals(
                List.of(
                        "org.hbcast.bench.tune.Calibrate",
                        "--passes",
                        "1",
                        "--merge",
                        "/tmp/s/launch-1.json",
                        "--merge",
                        "/tmp/s/launch-2.json",
                        "-x"),
                steps.get(2).program());
        assertEquals(false, steps.get(2).quiet());
        assertEquals(
                List.of("org.hbcast.bench.tune.Tuner", "--validate"),
                steps.get(3).program());
    }

    @Test
    void noCalibrationKeepsTheExistingFigures() {
        for (int launches : new int[] {0, 1, 4}) {
            TunePlan plan = new TunePlan(false, launches, List.of(), null, List.of("--sizes", "1M"), SCRATCH);
            assertEquals(1, plan.steps().size());
            assertEquals("tuning", plan.steps().get(0).title());
            assertEquals(List.of("org.hbcast.bench.tune.Tuner", "--sizes", "1M"), program(plan, 0));
        }
    }

    @Test
    void negativeLaunchesAreRefused() {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> new TunePlan(true, -1, List.of(), null, List.of(), SCRATCH));
        assertEquals("--launches must be a whole number (0: calibrate in the tuning launch), not '-1'", e.getMessage());
    }
}
