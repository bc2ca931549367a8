package org.hbcast.bench.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The launches of a comparison on one layout, in the order they run: first a selection check of
 * every Open MPI configuration; then, on the configurations Open MPI did select, the link probe (on
 * a test bed), the rounds (each runs every configuration once, interleaved, so that a slow spell of
 * the machine falls on all of them) and the user-style probe of each.
 *
 * @param settings the comparison's settings, on one layout
 * @param layout   that layout
 * @param out      the directory its runs go to
 */
public record ComparePlan(CompareSettings settings, Layout layout, Path out) {
    /** The implementations of the probe beside an Open MPI configuration: auto between two runs of it (its A/A floor). */
    public static final String PROBE_BESIDE_OPEN_MPI = "mpi,auto,mpi";
    /** The implementations of hbcast's probe: auto beside hbcast's own plans, and auto again (its A/A floor). */
    public static final String PROBE_BESIDE_HBCAST = "auto,native,knomial,hierarchical/ring,hierarchical/fanout,auto";

    /** The plan of {@code settings} (one layout, not the main job), its runs under {@code out}. */
    public static ComparePlan of(CompareSettings settings, Path out) {
        return new ComparePlan(settings, settings.parsedLayout(), out);
    }

    /** One check per Open MPI configuration: does Open MPI select its component for MPI_COMM_WORLD? */
    public List<Launch> selectionChecks() {
        List<Launch> checks = new ArrayList<>();
        for (Configuration c : settings.configs()) {
            if (c.component().isEmpty()) {
                continue;
            }
            List<String> program = new ArrayList<>(c.mcaArguments());
            program.addAll(List.of("--mca", "coll_base_verbose", "10", "org.hbcast.bench.TopologyReport"));
            checks.add(new Launch(
                    Launch.Kind.SELECTION_CHECK,
                    c,
                    0,
                    "selection check: " + c,
                    program,
                    out.resolve(c.label()).resolve("probe.log"),
                    null,
                    null));
        }
        return checks;
    }

    /** The measuring launches, on the configurations Open MPI selected ({@code measured}, in the settings' order). */
    public List<Launch> measurements(List<Configuration> measured) {
        List<Launch> launches = new ArrayList<>();
        if (layout.isBed()) {
            launches.add(new Launch(
                    Launch.Kind.LINK_PROBE,
                    Configuration.HBCAST,
                    0,
                    "link bound: LinkProbe between two hosts",
                    List.of(
                            "org.hbcast.bench.LinkProbe",
                            "--json",
                            out.resolve("link.json").toString()),
                    out.resolve("link.txt"),
                    out.resolve("link.json"),
                    null));
        }
        int steps = settings.rounds() * measured.size();
        int step = 0;
        for (int r = 1; r <= settings.rounds(); r++) {
            for (Configuration c : measured) {
                step++;
                Path dir = out.resolve(c.label());
                List<String> program = new ArrayList<>(c.mcaArguments());
                program.add("org.hbcast.bench.OsuBcast");
                if (!settings.osu().contains("--loop")) {
                    // OSU's own Java loop (OMB-J's OSUBcast), the benchmark users run: back to back.
                    program.addAll(List.of("--loop", "java"));
                }
                if (c == Configuration.HBCAST) {
                    program.addAll(List.of("--impl", settings.impls(), "--memcpy"));
                } else {
                    program.addAll(List.of("--impl", "native"));
                }
                program.addAll(settings.osu());
                Path json = dir.resolve("round-" + r + ".json");
                program.addAll(List.of("--json", json.toString()));
                launches.add(new Launch(
                        Launch.Kind.ROUND,
                        c,
                        r,
                        "[" + step + "/" + steps + "] round " + r + "/" + settings.rounds() + ": " + c,
                        program,
                        dir.resolve("round-" + r + ".txt"),
                        json,
                        null));
            }
        }
        if (settings.probes()) {
            Path dir = out.resolve("probe");
            for (Configuration c : measured) {
                if (!settings.probeConfigs().isEmpty()
                        && !settings.probeConfigs().contains(c)) {
                    continue;
                }
                String impls = c == Configuration.HBCAST ? PROBE_BESIDE_HBCAST : PROBE_BESIDE_OPEN_MPI;
                List<String> program = new ArrayList<>(c.mcaArguments());
                Path json = dir.resolve(c.label() + ".json");
                program.addAll(List.of(
                        "org.hbcast.bench.UserProbe",
                        "-m",
                        settings.probeSizes(),
                        "--impl",
                        impls,
                        "--calls",
                        Integer.toString(settings.probeCalls()),
                        "--blocks",
                        Integer.toString(settings.probeBlocks()),
                        "--json",
                        json.toString()));
                launches.add(new Launch(
                        Launch.Kind.USER_PROBE,
                        c,
                        0,
                        "user-style probe: " + c + " (" + impls + ")",
                        program,
                        dir.resolve(c.label() + ".txt"),
                        json,
                        dir.resolve("empty-cache")));
            }
        }
        return launches;
    }
}
