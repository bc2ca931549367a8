package org.hbcast.bench.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The launches of {@code tune} on a layout: where the calibration is measured, then the tuner's
 * sweep. By default the tuning launch calibrates before its sweep and again after it, just before
 * its check (Tuner --calibrate), since a launch has conditions of its own that drift and the model
 * is checked in it; {@code launches} L calibrates in L launches of their own instead, one pass
 * each, each figure the slowest launch's.
 *
 * @param calibrate     whether to calibrate at all ({@code --no-calibrate}: keep the existing figures)
 * @param launches      0: calibrate in the tuning launch; L: in L launches of their own
 * @param calibrateArgs options of Calibrate ({@code --calibrate-args}, split at spaces)
 * @param dir           where calibration.json and tuning.json go, or null for the cache places
 * @param tunerArgs     options of the Tuner
 * @param scratch       a directory for the separate launches' partial calibrations
 */
public record TunePlan(
        boolean calibrate, int launches, List<String> calibrateArgs, Path dir, List<String> tunerArgs, Path scratch) {

    /** The Tuner's options unless told: check the table it wrote. */
    public static final List<String> DEFAULT_TUNER_ARGS = List.of("--validate");

    /**
     * One launch of the plan.
     *
     * @param title   the progress line before it
     * @param program main class and arguments
     * @param quiet   its output is not shown (a partial calibration, merged by the next)
     */
    public record Step(String title, List<String> program, boolean quiet) {
        public Step {
            program = List.copyOf(program);
        }
    }

    public TunePlan {
        if (launches < 0) {
            throw new IllegalArgumentException(
                    "--launches must be a whole number (0: calibrate in the tuning launch), not '" + launches + "'");
        }
        calibrateArgs = List.copyOf(calibrateArgs);
        tunerArgs = List.copyOf(tunerArgs.isEmpty() ? DEFAULT_TUNER_ARGS : tunerArgs);
    }

    /** The calibration file the model must read ({@code HBCAST_CALIBRATION_FILE}), or null for the cache's. */
    public Path calibrationFile() {
        return dir == null ? null : dir.resolve("calibration.json");
    }

    /** The launches, in order. */
    public List<Step> steps() {
        List<Step> steps = new ArrayList<>();
        List<String> calibrationOut =
                dir == null ? List.of() : List.of("--out", calibrationFile().toString());
        boolean inTuningLaunch = calibrate && launches == 0;
        if (calibrate && launches == 1) {
            steps.add(new Step("calibrating", calibrate(List.of(), calibrationOut), false));
        } else if (calibrate && launches > 1) {
            List<String> merge = new ArrayList<>();
            for (int k = 1; k < launches; k++) {
                Path part = scratch.resolve("launch-" + k + ".json");
                List<String> args = new ArrayList<>(List.of("--passes", "1", "--out", part.toString()));
                steps.add(new Step("calibrating: launch " + k + " of " + launches, calibrate(args, List.of()), true));
                merge.addAll(List.of("--merge", part.toString()));
            }
            List<String> args = new ArrayList<>(List.of("--passes", "1"));
            args.addAll(merge);
            steps.add(new Step(
                    "calibrating: launch " + launches + " of " + launches + ", merged with the others",
                    calibrate(args, calibrationOut),
                    false));
        }
        List<String> tuner = new ArrayList<>(List.of("org.hbcast.bench.tune.Tuner"));
        if (inTuningLaunch) {
            // The calibration lands where the model reads it: HBCAST_CALIBRATION_FILE with a dir, else the cache.
            tuner.add("--calibrate=" + String.join(" ", calibrateArgs));
        }
        if (dir != null) {
            tuner.addAll(List.of("--out", dir.resolve("tuning.json").toString()));
        }
        tuner.addAll(tunerArgs);
        steps.add(new Step(
                inTuningLaunch ? "tuning, calibrating before and after the sweep in the same launch" : "tuning",
                tuner,
                false));
        return steps;
    }

    private List<String> calibrate(List<String> args, List<String> out) {
        List<String> program = new ArrayList<>(List.of("org.hbcast.bench.tune.Calibrate"));
        program.addAll(args);
        program.addAll(out);
        program.addAll(calibrateArgs);
        return program;
    }
}
