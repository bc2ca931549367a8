package org.hbcast.bench.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.hbcast.bench.experiment.BedCores;
import org.hbcast.bench.experiment.Layout;
import org.hbcast.bench.launch.BenchFailure;
import org.hbcast.bench.launch.Directories;
import org.hbcast.bench.launch.Hbrun;
import org.hbcast.bench.launch.Messages;
import org.hbcast.bench.launch.Repository;
import org.hbcast.bench.launch.Subprocess;
import org.hbcast.bench.launch.Terminal;
import org.hbcast.bench.launch.TestBed;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ocean} ({@code scripts/ocean}): the ocean model (org.hbcast.bench.ocean.OceanModel), native
 * against hierarchical broadcast of the wind field, on one layout; on a test bed the link bound is
 * measured first and the model prints each broadcast's fraction of it.
 */
@Command(
        name = "ocean",
        mixinStandardHelpOptions = true,
        usageHelpWidth = 110,
        sortOptions = false,
        modelTransformer = OceanCommand.ModelOptionsFollow.class,
        description = {
            "The ocean-model benchmark (org.hbcast.bench.ocean.OceanModel): native vs hierarchical broadcast of the"
                    + " wind field, end to end, on one node, on virtual nodes or on a test bed of network"
                    + " namespaces. The first argument that is none of the options below starts the model's own"
                    + " (scripts/hbrun org.hbcast.bench.ocean.OceanModel --help lists them).",
            "e.g. ocean --testbed 2x2 -- --nx 1024 --ny 1024 --steps 200 -K 1 --repeat 3",
            "     ocean --layout testbed3x4,2,2 --rate 1gbit -- --nx 1024 --ny 1024 -K 1 --repeat 3"
        })
public final class OceanCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    private String layout = "node4";

    @Option(
            names = {"-n", "--np"},
            paramLabel = "RANKS",
            description = "one node of RANKS ranks (default 4)")
    void ranks(String n) {
        layout = "node" + n;
    }

    @Option(names = "--nodes", paramLabel = "SIZES", description = "virtual nodes of these sizes, e.g. 2,2")
    void nodes(String sizes) {
        layout = "virtual" + sizes;
    }

    @Option(
            names = "--testbed",
            paramLabel = "HxS[,S..][-rr]",
            description = "a test bed of network namespaces (needs root): --testbed X is --layout testbedX")
    void testbed(String bed) {
        layout = "testbed" + bed;
    }

    @Option(names = "--layout", paramLabel = "L", description = "any layout compare takes (see compare --help)")
    void layout(String text) {
        layout = text;
    }

    @Option(names = "--rate", paramLabel = "R", description = "shape every test-bed host's link to R (e.g. 1gbit)")
    String rate;

    @Parameters(paramLabel = "OCEAN_OPTIONS", description = "the model's options")
    List<String> model = new ArrayList<>();

    @CommandLine.Unmatched
    List<String> unmatched = new ArrayList<>();

    /** The layout the options name; a usage error for a bad one, or a rate on no bed. */
    Layout layout() {
        try {
            Layout parsed = Layout.parse(Layout.oneVirtualNodeAsNode(layout));
            if (rate != null && !parsed.isBed()) {
                throw new IllegalArgumentException(
                        "--rate " + rate + " shapes a test bed's links: give a testbed layout");
            }
            return parsed;
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private boolean ownCores(Layout parsed) {
        try {
            return BedCores.own(
                    System.getenv(BedCores.SETTING),
                    parsed.bedHosts(),
                    Runtime.getRuntime().availableProcessors());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    /** The model's main class and options; with a progress bar where standard error is a terminal. */
    List<String> program(boolean terminal) {
        List<String> program = new ArrayList<>(List.of("org.hbcast.bench.ocean.OceanModel"));
        program.addAll(model);
        program.addAll(unmatched);
        // The ranks' standard error is a pipe to mpirun, so the model cannot see a terminal: ask for the bar.
        if (terminal && !program.contains("--progress") && !program.contains("--no-progress")) {
            program.add("--progress");
        }
        return program;
    }

    /** The model's options may follow without {@code --}: the first unknown option starts them. */
    public static final class ModelOptionsFollow implements CommandLine.IModelTransformer {
        @Override
        public CommandLine.Model.CommandSpec transform(CommandLine.Model.CommandSpec spec) {
            spec.parser().stopAtUnmatched(true);
            return spec;
        }
    }

    @Override
    public Integer call() throws IOException {
        Layout parsed = layout();
        boolean own = ownCores(parsed);
        List<String> program = program(Terminal.isStandardError());
        Path root = Repository.root();
        Path scratch = Directories.scratch("hbcast-ocean");
        try (TestBed bed = parsed.isBed() ? TestBed.up(root, parsed, rate, own) : null) {
            Hbrun hbrun = Hbrun.of(root, parsed, bed, 0);
            if (bed != null) {
                Path link = scratch.resolve("link.json");
                Messages.say("link bound: LinkProbe between two hosts");
                int code = Subprocess.of(
                                hbrun.command(List.of("org.hbcast.bench.LinkProbe", "--json", link.toString())))
                        .teeTo(scratch.resolve("link.txt"))
                        .run();
                if (code != 0) {
                    throw new BenchFailure("the link probe failed (exit status " + code + ")", code);
                }
                program.addAll(List.of("--link-bound", link.toString()));
            }
            return Subprocess.of(hbrun.command(program)).run();
        } finally {
            Directories.deleteTree(scratch);
        }
    }
}
