package org.hbcast.bench.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.hbcast.bench.experiment.CompareSettings;
import org.hbcast.bench.experiment.Configuration;
import org.hbcast.bench.launch.CompareRun;
import org.hbcast.bench.launch.MainJobRun;
import org.hbcast.bench.launch.Messages;
import org.hbcast.bench.launch.Repository;
import org.hbcast.bench.launch.TestBed;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code compare} ({@code scripts/compare}): Open MPI's own broadcast algorithms against hbcast's on
 * one layout, or the main job; its options checked whole into {@link CompareSettings} before any
 * launch.
 */
@Command(
        name = "compare",
        mixinStandardHelpOptions = true,
        usageHelpWidth = 110,
        sortOptions = false,
        description = {
            "Compares broadcasts on one layout: Open MPI's own algorithms (coll tuned default, tuned forced to"
                    + " k-nomial, adapt, han), each through the Java bindings, against hbcast's knomial,"
                    + " hierarchical and auto. The report (stdout and compare.md) leads with the user-style probe"
                    + " (complete broadcasts, the slowest rank): its headline and goal lines; OSU's method (each"
                    + " rank's mean over back-to-back calls) follows as a second view, where a figure above a"
                    + " physical bound is marked as overlapped throughput and never counted as a goal met. Also a"
                    + " log-log PNG plot and a merged JSON."
        },
        footer = {
            "",
            "Every round runs every configuration once, interleaved. Then the user-style probe"
                    + " (org.hbcast.bench.UserProbe): one launch per Open MPI configuration with auto interleaved"
                    + " beside it (mpi,auto,mpi: the A/A floor), and one of auto beside hbcast's own plans; its table"
                    + " (org.hbcast.bench.report.ProbeReport) leads the report, before the OSU-style one.",
            "",
            "Open MPI configurations a probe run (--mca coll_base_verbose 10) shows Open MPI did not select for"
                    + " MPI_COMM_WORLD in every process (han disqualifies itself when all ranks share one host) are"
                    + " not measured; the report says why.",
            "",
            "Layouts: nodeN (one node of N ranks); virtualAxB or virtualS0,S1,.. (virtual nodes on this machine);"
                    + " testbedHxS or testbedHxS0,S1,.. (H namespace hosts of S or Si ranks, e.g. testbed3x4,2,2);"
                    + " testbedHxS-rr (ranks dealt round-robin over the hosts). On a test bed the run first measures"
                    + " the link bound (org.hbcast.bench.LinkProbe) and the report gives every column's fraction of"
                    + " it. HBCAST_BED_CORES=own|shared|auto: a bed's hosts on cores of their own (auto: where the"
                    + " machine has a core for every host)."
        })
public final class CompareCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--layout",
            paramLabel = "L",
            description = "main (default): node4 (against the copy bound), then where `scripts/testbed check` passes"
                    + " testbed3x4,2,2 with links shaped to --rate (default 1gbit; against the link bound; sizes"
                    + " 64 KiB-16 MiB, fewer calls), one report of both; auto: testbed2x2 where a test bed can be"
                    + " made, virtual2x2 otherwise; or a layout (below)")
    String layout = CompareSettings.MAIN;

    @Option(
            names = "--rate",
            paramLabel = "R",
            description = "shape every test-bed host's link to R (tc rate, e.g. 1gbit), so that the network, not"
                    + " this machine's cores, is the bottleneck")
    String rate;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            description = "rounds; each runs every configuration once, interleaved; medians over rounds"
                    + " (default ${DEFAULT-VALUE})")
    int rounds = 3;

    @Option(
            names = "--configs",
            paramLabel = "LIST",
            description = "of tuned,tuned-knomial,adapt,han,hbcast (default all)")
    String configs = "tuned,tuned-knomial,adapt,han,hbcast";

    @Option(
            names = "--impls",
            paramLabel = "LIST",
            description = "hbcast implementations of the hbcast run (default ${DEFAULT-VALUE})")
    String impls = "native,knomial,hierarchical,auto";

    @Option(
            names = "--out",
            paramLabel = "DIR",
            description = "where runs, compare.md and merged.json go (default results/compare-<layout>)")
    Path out;

    @Option(
            names = "--plot",
            paramLabel = "PNG",
            description = "the plot (default docs/results/compare/compare-<layout>.png)")
    Path plot;

    @Option(names = "--timeout", paramLabel = "S", description = "limit of one mpirun (default ${DEFAULT-VALUE})")
    int timeout = 3600;

    @Option(
            names = "--probe-sizes",
            paramLabel = "R",
            description = "sizes of the user-style probe, [MIN:]MAX doubling (default ${DEFAULT-VALUE}); 0 skips it")
    String probeSizes = "1:67108864";

    @Option(
            names = "--probe-calls",
            paramLabel = "N",
            description = "the probe's calls per block (default ${DEFAULT-VALUE})")
    int probeCalls = 20;

    @Option(
            names = "--probe-blocks",
            paramLabel = "N",
            description = "the probe's blocks per size (default ${DEFAULT-VALUE})")
    int probeBlocks = 7;

    @Option(
            names = "--probe-configs",
            paramLabel = "LIST",
            description = "the configurations the probe runs beside auto (default: every one measured)")
    String probeConfigs;

    @Parameters(
            paramLabel = "OSU_BCAST_OPTIONS",
            description = "after --: options of every OsuBcast run (default -m 1:67108864; OSU's -i/-x defaults)")
    List<String> osu = new ArrayList<>();

    @Override
    public Integer call() throws Exception {
        CompareSettings settings = settings();
        Path root = Repository.root();
        if (settings.isMain()) {
            new MainJobRun(root, settings).run();
            return 0;
        }
        CompareSettings resolved = settings;
        if (CompareSettings.AUTO.equals(settings.layout())) {
            Optional<String> noBed = TestBed.unavailable(root);
            noBed.ifPresent(why -> Messages.say("no test bed here (" + why + "): virtual nodes instead"));
            resolved = settings.resolved(noBed.isEmpty());
        }
        new CompareRun(root, resolved).run(true);
        return 0;
    }

    /** The options, checked: a bad one is a usage error naming it. */
    CompareSettings settings() {
        Options.onlyAfterDoubleDash(spec, osu, "OsuBcast options");
        try {
            return new CompareSettings(
                    layout,
                    rate,
                    rounds,
                    Configuration.parseList(configs, "--configs"),
                    impls,
                    out,
                    plot,
                    timeout,
                    probeSizes,
                    probeCalls,
                    probeBlocks,
                    probeConfigs == null ? List.of() : Configuration.parseList(probeConfigs, "--probe-configs"),
                    osu);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }
}
