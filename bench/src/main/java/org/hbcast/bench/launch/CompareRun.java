package org.hbcast.bench.launch;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.hbcast.bench.experiment.BedCores;
import org.hbcast.bench.experiment.CollSelection;
import org.hbcast.bench.experiment.ComparePlan;
import org.hbcast.bench.experiment.CompareSettings;
import org.hbcast.bench.experiment.Configuration;
import org.hbcast.bench.experiment.Launch;
import org.hbcast.bench.experiment.Layout;
import org.hbcast.bench.report.BothMethodsSummary;
import org.hbcast.bench.report.CompareReport;
import org.hbcast.bench.report.Config;
import org.hbcast.bench.report.LinkBound;
import org.hbcast.bench.report.ProbeReport;

/**
 * Runs a comparison on one layout as its {@link ComparePlan} says: brings its test bed up (and
 * always down), checks which configurations Open MPI selects, runs the measuring launches with
 * their output teed to the run's files, and writes the report: the user-style table first (complete
 * broadcasts, the slowest rank), OSU's method second, as {@code compare.md}.
 */
public final class CompareRun {
    /** Variables of the caller's shell that would change what is measured: the layout and --impl decide them. */
    private static final List<String> CALLERS_SETTINGS = List.of("HBCAST_NODE_SIZES", "HBCAST_ALGORITHM");

    private final Path root;
    private final CompareSettings settings;

    public CompareRun(Path root, CompareSettings settings) {
        this.root = root;
        this.settings = settings;
    }

    /**
     * Runs it; the report's path. {@code print}: the report also goes to standard output. A
     * {@link BenchFailure} after the report when launches failed.
     */
    public Path run(boolean print) throws IOException {
        Layout layout = settings.parsedLayout();
        Path out = settings.outIn(root);
        Path plot = settings.plotIn(root);
        ComparePlan plan = new ComparePlan(settings, layout, out);
        TestBed bed = layout.isBed()
                ? TestBed.up(
                        root,
                        layout,
                        settings.rate(),
                        BedCores.own(
                                System.getenv(BedCores.SETTING),
                                layout.bedHosts(),
                                Runtime.getRuntime().availableProcessors()))
                : null;
        try {
            Hbrun hbrun = Hbrun.of(root, layout, bed, settings.timeoutSeconds());
            Messages.say("layout " + layout.name() + ": " + layout.ranks() + " ranks; configurations "
                    + String.join(
                            " ",
                            settings.configs().stream()
                                    .map(Configuration::label)
                                    .toList()) + "; "
                    + settings.rounds() + " rounds; OsuBcast " + String.join(" ", settings.osu()));
            Directories.deleteTree(out);
            List<Configuration> measured = checkSelections(plan, hbrun, out);
            int failed = 0;
            int runs = 0;
            Path link = null;
            for (Launch launch : plan.measurements(measured)) {
                Messages.say(launch.title());
                if (launch.freshCache() != null) {
                    Directories.deleteTree(launch.freshCache());
                }
                boolean ok = launch(hbrun, launch) == 0;
                if (launch.kind() == Launch.Kind.LINK_PROBE) {
                    if (ok) {
                        link = launch.json();
                    } else {
                        Messages.say(
                                "the link probe failed (see " + launch.output() + "): no fractions of the link bound");
                    }
                    continue;
                }
                runs++;
                if (!ok) {
                    failed++;
                    Files.deleteIfExists(launch.json());
                    Messages.say(
                            launch.kind() == Launch.Kind.ROUND
                                    ? launch.configuration() + " round " + launch.round() + " failed (see "
                                            + launch.output() + "); the report uses the other rounds"
                                    : "probe of " + launch.configuration() + " failed (see " + launch.output() + ")");
                }
            }
            Path report = report(layout, out, plot, link);
            if (print) {
                System.out.print(Files.readString(report));
                System.out.flush();
            }
            Messages.say("table: " + report + "; plot: " + plot + "; merged: " + out.resolve("merged.json") + "; runs: "
                    + out);
            if (failed > 0) {
                throw new BenchFailure(failed + " of " + runs + " runs failed", 2);
            }
            return report;
        } finally {
            if (bed != null) {
                bed.close();
            }
        }
    }

    /** Runs the selection checks and writes every configuration's config.properties; those Open MPI selected. */
    private List<Configuration> checkSelections(ComparePlan plan, Hbrun hbrun, Path out) throws IOException {
        List<Launch> checks = plan.selectionChecks();
        List<Configuration> measured = new ArrayList<>();
        int order = 0;
        for (Configuration c : settings.configs()) {
            order++;
            Files.createDirectories(out.resolve(c.label()));
            String unavailable = null;
            String selected = null;
            Launch check = checks.stream()
                    .filter(l -> l.configuration() == c)
                    .findFirst()
                    .orElse(null);
            if (check != null) {
                String component = c.component().orElseThrow();
                if (launch(hbrun, check) != 0) {
                    unavailable = "probe run failed (see " + check.output() + ")";
                } else {
                    // Lenient: a rank's output may hold bytes that are not UTF-8.
                    CollSelection selection =
                            CollSelection.read(new String(Files.readAllBytes(check.output()), StandardCharsets.UTF_8)
                                    .lines()
                                    .toList());
                    if (selection.selectedEverywhere(component)) {
                        selected = "coll/" + component
                                + " selected for MPI_COMM_WORLD in every process (coll_base_verbose probe)";
                    } else {
                        unavailable = selection.whyNot(component, check.output().toString());
                    }
                }
            }
            if (unavailable != null) {
                Messages.say(c + ": not measured: " + unavailable);
            } else {
                measured.add(c);
            }
            Config config = new Config(
                    c.label(), order, c.isOpenMpi(), String.join(" ", c.mcaArguments()), unavailable, selected);
            Files.writeString(out.resolve(c.label()).resolve("config.properties"), config.properties());
        }
        return measured;
    }

    private int launch(Hbrun hbrun, Launch launch) throws IOException {
        Subprocess p = Subprocess.of(hbrun.command(launch.program())).env(launch.environment());
        CALLERS_SETTINGS.forEach(p::unsetEnv);
        if (launch.teed()) {
            p.teeTo(launch.output());
        } else {
            p.into(launch.output());
        }
        // mpirun's --timeout ends the job; this limit only catches an mpirun that hangs after it.
        return p.limit(Duration.ofSeconds(settings.timeoutSeconds() + 60L)).run();
    }

    /** The OSU-style table (and plot, merged JSON), the probe's table, and compare.md leading with the probe's. */
    private Path report(Layout layout, Path out, Path plot, Path link) throws IOException {
        Path parent = plot.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        String osu =
                CompareReport.write(out, layout.name(), link, out.resolve("osu.md"), plot, out.resolve("merged.json"));
        Path probeMd = out.resolve("probe.md");
        Files.deleteIfExists(probeMd);
        StringBuilder md = new StringBuilder("# " + layout.name() + "\n\n");
        Path probeDir = out.resolve("probe");
        if (hasJson(probeDir)) {
            md.append(BothMethodsSummary.render(
                            ProbeReport.summaryCells(probeDir),
                            BothMethodsSummary.osuCells(CompareReport.merge(out, layout.name()))))
                    .append('\n');
            String probe = ProbeReport.renderDirectory(probeDir, link == null ? null : LinkBound.read(link));
            Files.writeString(probeMd, probe);
            md.append(probe).append('\n');
        }
        md.append(osu);
        Path report = out.resolve("compare.md");
        Files.writeString(report, md.toString());
        return report;
    }

    private static boolean hasJson(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.anyMatch(p -> p.getFileName().toString().endsWith(".json"));
        }
    }
}
