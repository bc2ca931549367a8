package org.hbcast.bench.experiment;

import java.nio.file.Path;
import java.util.List;
import org.hbcast.bench.OsuBcast;

/**
 * What one comparison is asked to do ({@code hbcast-bench compare}'s options), checked whole before
 * anything runs: a bad value is an {@link IllegalArgumentException} naming the option.
 *
 * @param layout         {@value #MAIN} (the main job), {@value #AUTO}, or a {@link Layout}
 * @param rate           the rate every test-bed link is shaped to (tc's, e.g. 1gbit), or null for none
 * @param rounds         rounds; each runs every configuration once, interleaved
 * @param configs        the configurations, in the report's order
 * @param impls          hbcast's implementations in the hbcast run ({@code OsuBcast --impl})
 * @param out            where the runs and reports go, or null for {@code results/compare-LAYOUT}
 * @param plot           the plot, or null for {@code docs/results/compare/compare-LAYOUT.png}
 * @param timeoutSeconds the limit of one mpirun
 * @param probeSizes     the user-style probe's sizes ({@code [MIN:]MAX}), or "0" for no probe
 * @param probeCalls     the probe's calls per block
 * @param probeBlocks    the probe's blocks per size
 * @param probeConfigs   the configurations the probe runs beside auto; empty for every one measured
 * @param osu            the OsuBcast options of every run
 */
public record CompareSettings(
        String layout,
        String rate,
        int rounds,
        List<Configuration> configs,
        String impls,
        Path out,
        Path plot,
        int timeoutSeconds,
        String probeSizes,
        int probeCalls,
        int probeBlocks,
        List<Configuration> probeConfigs,
        List<String> osu) {

    /** The main job: one node of 4, then a shaped test bed where one can be made ({@link MainJob}). */
    public static final String MAIN = "main";
    /** A 2x2 test bed where one can be made, virtual nodes 2+2 otherwise. */
    public static final String AUTO = "auto";
    /** The OsuBcast options of every run unless told. */
    public static final List<String> DEFAULT_OSU = List.of("-m", "1:67108864");
    /** "--probe-sizes 0": no user-style probe. */
    public static final String NO_PROBE = "0";

    public CompareSettings {
        configs = List.copyOf(configs);
        probeConfigs = List.copyOf(probeConfigs);
        osu = List.copyOf(osu.isEmpty() ? DEFAULT_OSU : osu);
        if (rate != null && rate.isBlank()) {
            rate = null;
        }
        positive("--rounds", rounds);
        positive("--timeout", timeoutSeconds);
        positive("--probe-calls", probeCalls);
        positive("--probe-blocks", probeBlocks);
        if (configs.isEmpty()) {
            throw new IllegalArgumentException("--configs names no configuration");
        }
        if (impls == null || impls.isBlank() || impls.contains(" ")) {
            throw new IllegalArgumentException(
                    "--impls needs a comma-separated list such as native,auto, not '" + impls + "'");
        }
        if (!NO_PROBE.equals(probeSizes)) {
            try {
                OsuBcast.parseSizes(probeSizes);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "--probe-sizes takes [MIN:]MAX in bytes, or 0 for no probe, not '" + probeSizes + "'");
            }
        }
        for (String a : osu) {
            if (a.equals("--impl") || a.startsWith("--impl=")) {
                throw new IllegalArgumentException("choose hbcast's implementations with --impls, not --impl");
            }
            if (a.equals("--json") || a.startsWith("--json=") || a.equals("--csv") || a.startsWith("--csv=")) {
                throw new IllegalArgumentException(a + ": the runner writes the JSON files itself");
            }
        }
        if (MAIN.equals(layout)) {
            if (plot != null) {
                throw new IllegalArgumentException(
                        "--plot names one plot, and the main job draws one per part: give --layout too");
            }
        } else if (!AUTO.equals(layout)) {
            Layout parsed = Layout.parse(layout);
            if (rate != null && !parsed.isBed()) {
                throw new IllegalArgumentException(
                        "--rate " + rate + " shapes a test bed's links: give a testbed layout");
            }
        }
    }

    /** Whether this is the main job, which runs as parts ({@link MainJob#parts}). */
    public boolean isMain() {
        return MAIN.equals(layout);
    }

    /** The layout to run on; {@code bedAvailable} decides {@value #AUTO}. */
    public CompareSettings resolved(boolean bedAvailable) {
        if (!AUTO.equals(layout)) {
            return this;
        }
        return withLayout(bedAvailable ? "testbed2x2" : "virtual2x2", out, plot);
    }

    /** The layout, parsed; not for {@value #MAIN} or unresolved {@value #AUTO}. */
    public Layout parsedLayout() {
        if (isMain() || AUTO.equals(layout)) {
            throw new IllegalStateException(layout + " is not one layout");
        }
        return Layout.parse(layout);
    }

    /** Whether the user-style probe runs. */
    public boolean probes() {
        return !NO_PROBE.equals(probeSizes);
    }

    /** The output directory: {@link #out} or {@code ROOT/results/compare-LAYOUT}. */
    public Path outIn(Path root) {
        return out != null ? out : root.resolve("results").resolve("compare-" + layout);
    }

    /** The plot: {@link #plot} or {@code ROOT/docs/results/compare/compare-LAYOUT.png}. */
    public Path plotIn(Path root) {
        return plot != null ? plot : root.resolve("docs/results/compare").resolve("compare-" + layout + ".png");
    }

    /** These settings on another layout, writing to {@code out} and {@code plot} (null: the layout's defaults). */
    public CompareSettings withLayout(String otherLayout, Path otherOut, Path otherPlot) {
        return new CompareSettings(
                otherLayout,
                rate,
                rounds,
                configs,
                impls,
                otherOut,
                otherPlot,
                timeoutSeconds,
                probeSizes,
                probeCalls,
                probeBlocks,
                probeConfigs,
                osu);
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be a positive whole number, not '" + value + "'");
        }
    }
}
