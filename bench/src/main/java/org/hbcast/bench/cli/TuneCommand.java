package org.hbcast.bench.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.hbcast.bench.Explain;
import org.hbcast.bench.FingerprintReport;
import org.hbcast.bench.experiment.BedCores;
import org.hbcast.bench.experiment.Layout;
import org.hbcast.bench.experiment.TunePlan;
import org.hbcast.bench.launch.BenchFailure;
import org.hbcast.bench.launch.Directories;
import org.hbcast.bench.launch.Hbrun;
import org.hbcast.bench.launch.Messages;
import org.hbcast.bench.launch.Repository;
import org.hbcast.bench.launch.Subprocess;
import org.hbcast.bench.launch.TestBed;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code tune} ({@code scripts/tune}): calibrates and tunes the selector on a layout as a
 * {@link TunePlan} says; {@code tune explain} and {@code tune fingerprint} run locally.
 */
@Command(
        name = "tune",
        mixinStandardHelpOptions = true,
        usageHelpWidth = 110,
        sortOptions = false,
        subcommands = {Explain.class, FingerprintReport.class},
        description = {
            "Calibrates the links (org.hbcast.bench.tune.Calibrate), then sweeps and writes the tuning table and"
                    + " plot (org.hbcast.bench.tune.Tuner; default options: --validate). By default the tuning"
                    + " launch calibrates before its sweep and again after it, just before its check, each figure"
                    + " the slower of the two (Tuner --calibrate), since a launch has conditions of its own that"
                    + " drift and the model is checked in it; --launches L calibrates in L launches of their own"
                    + " instead, one pass each, each figure the slowest launch's.",
            "Layout: a test bed of H hosts x S ranks (where root can make one), virtual nodes, or one node of N"
                    + " ranks (default -n 4); or any layout compare takes (--layout testbed3x4,2,2, testbed4x2-rr,"
                    + " virtual8,3,3), --rate R shaping a test bed's links (e.g. 1gbit).",
            "tune explain --bytes 16M --layout 2x2 [--table FILE|none] [--memory host|device] ...: what the"
                    + " selector picks and why; tune fingerprint [--layout 2x2]: the hardware fingerprint."
        })
public final class TuneCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--hosts", paramLabel = "H", description = "a test bed of H hosts (with --slots)")
    Integer hosts;

    @Option(names = "--slots", paramLabel = "S", description = "ranks on each test-bed host (default ${DEFAULT-VALUE})")
    String slots = "2";

    @Option(names = "--nodes", paramLabel = "SIZES", description = "virtual nodes of these sizes, e.g. 2,2")
    String nodes;

    @Option(names = "-n", paramLabel = "N", description = "one node of N ranks (default ${DEFAULT-VALUE})")
    int ranks = 4;

    @Option(names = "--layout", paramLabel = "L", description = "any layout compare takes; wins over the above")
    String layout;

    @Option(names = "--rate", paramLabel = "R", description = "shape every test-bed host's link to R (e.g. 1gbit)")
    String rate;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            description = "write DIR/calibration.json, DIR/tuning.json and DIR/tuning.png instead of the cache places"
                    + " (~/.cache/hbcast/, which auto then picks up for this fingerprint)")
    Path dir;

    @Option(names = "--no-calibrate", description = "keep the existing calibration")
    boolean noCalibrate;

    @Option(
            names = "--launches",
            paramLabel = "L",
            description = "calibrate in L launches of their own, one pass each (default ${DEFAULT-VALUE}: in the"
                    + " tuning launch, before and after its sweep)")
    int launches = 0;

    @Option(
            names = "--calibrate-args",
            paramLabel = "\"ARGS\"",
            description = "options of Calibrate, one quoted argument split at spaces")
    String calibrateArgs = "";

    @Parameters(paramLabel = "TUNER_OPTIONS", description = "after --: options of the Tuner (default --validate)")
    List<String> tuner = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        Options.onlyAfterDoubleDash(spec, tuner, "Tuner options");
        Layout parsed = layout();
        Path absoluteDir = dir == null ? null : dir.toAbsolutePath().normalize();
        boolean own;
        try {
            own = BedCores.own(
                    System.getenv(BedCores.SETTING),
                    parsed.bedHosts(),
                    Runtime.getRuntime().availableProcessors());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        Path root = Repository.root();
        Path scratch = Directories.scratch("hbcast-tune");
        try {
            TunePlan plan = plan(absoluteDir, scratch);
            if (absoluteDir != null) {
                Files.createDirectories(absoluteDir);
            }
            try (TestBed bed = parsed.isBed() ? TestBed.up(root, parsed, rate, own) : null) {
                Hbrun hbrun = Hbrun.of(root, parsed, bed, 0);
                for (TunePlan.Step step : plan.steps()) {
                    Messages.say(step.title());
                    Subprocess p = Subprocess.of(hbrun.command(step.program()));
                    if (plan.calibrationFile() != null) {
                        p.env("HBCAST_CALIBRATION_FILE", plan.calibrationFile().toString());
                    }
                    if (step.quiet()) {
                        p.into(Path.of("/dev/null"));
                    }
                    int code = p.run();
                    if (code != 0) {
                        throw new BenchFailure(step.title() + " failed (exit status " + code + ")", code);
                    }
                }
            }
        } finally {
            Directories.deleteTree(scratch);
        }
        return 0;
    }

    /** The layout the options name; a usage error for a bad one, or a rate on no bed. */
    Layout layout() {
        try {
            Layout parsed = Layout.parse(Layout.oneVirtualNodeAsNode(layoutName()));
            if (rate != null && !parsed.isBed()) {
                throw new IllegalArgumentException(
                        "--rate " + rate + " shapes a test bed's links: give a testbed layout");
            }
            return parsed;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The launches, the calibration in {@code absoluteDir} (null: the cache's), partial ones in {@code scratch}. */
    TunePlan plan(Path absoluteDir, Path scratch) {
        try {
            return new TunePlan(!noCalibrate, launches, words(calibrateArgs), absoluteDir, tuner, scratch);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The layout the options name: --layout, else --hosts/--slots, else --nodes, else -n. */
    private String layoutName() {
        if (layout != null) {
            return layout;
        }
        if (hosts != null) {
            return "testbed" + hosts + "x" + slots;
        }
        if (nodes != null) {
            return "virtual" + nodes;
        }
        return "node" + ranks;
    }

    private static List<String> words(String text) {
        return text.isBlank() ? List.of() : Arrays.asList(text.strip().split("\\s+"));
    }
}
