package org.hbcast.bench.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.hbcast.bench.experiment.Layout;
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
 * {@code soak} ({@code scripts/soak}): random broadcasts, every byte verified, memory measured
 * (org.hbcast.bench.soak.Soak) on virtual nodes or a test bed; its exit status is the program's.
 */
@Command(
        name = "soak",
        mixinStandardHelpOptions = true,
        usageHelpWidth = 110,
        sortOptions = false,
        description = {
            "Soak test: random broadcasts (sizes 0..64 MiB, roots, datatypes, memory kinds, algorithms), every byte"
                    + " verified, memory measured after warm-up and at the end (org.hbcast.bench.soak.Soak; its"
                    + " options: soak -- --help).",
            "e.g. 10 minutes on 8+3+3: soak --nodes 8,3,3 -- --duration 10m",
            "     10 minutes on a bed: soak --testbed 2x2 -- --duration 10m",
            "     every plan forced in turn, 20 s each, on a bed (one segment and one report line per plan):"
                    + " soak --testbed 2x2 -- --plans all --duration 20s --warmup 30"
        },
        footer = {
            "",
            "Every rank's Java heap is fixed and touched up front (HBCAST_JVM_OPTS, default"
                    + " \"" + SoakCommand.DEFAULT_JVM_OPTS + "\") so that the resident set measures leaks, not heap"
                    + " growth. Exit status: the program's (0 all right, 1 wrong or failed calls, 3 memory grew)."
        })
public final class SoakCommand implements Callable<Integer> {
    /** The ranks' JVM options unless HBCAST_JVM_OPTS says otherwise. */
    static final String DEFAULT_JVM_OPTS = "-Xms384m -Xmx384m -XX:+AlwaysPreTouch";

    private static final Pattern BED = Pattern.compile("([1-9][0-9]*)x([1-9][0-9]*)");
    private static final Pattern SIZES = Pattern.compile("[1-9][0-9]*(,[1-9][0-9]*)*");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--nodes", paramLabel = "SIZES", description = "virtual nodes of these sizes (default 2,2)")
    String nodes;

    @Option(names = "--testbed", paramLabel = "HxS", description = "a test bed of H hosts x S ranks (needs root)")
    String testbed;

    @Parameters(paramLabel = "SOAK_OPTIONS", description = "after --: the program's options (default --duration 60s)")
    List<String> soak = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
        Options.onlyAfterDoubleDash(spec, soak, "Soak options");
        Layout layout = layout();
        List<String> program = new ArrayList<>(List.of("org.hbcast.bench.soak.Soak"));
        program.addAll(soak.isEmpty() ? List.of("--duration", "60s") : soak);
        String jvm = System.getenv("HBCAST_JVM_OPTS");
        var root = Repository.root();
        try (TestBed bed = layout.isBed() ? TestBed.up(root, layout, null, false) : null) {
            Messages.say(
                    layout.isBed()
                            ? "layout: test bed of " + layout.bedHosts() + " hosts x " + layout.slotsArgument()
                                    + " ranks"
                            : "layout: virtual nodes " + nodes());
            return Subprocess.of(Hbrun.of(root, layout, bed, 0).command(program))
                    .env("HBCAST_JVM_OPTS", jvm == null ? DEFAULT_JVM_OPTS : jvm)
                    .run();
        }
    }

    /** The layout the options name; a usage error for a malformed one. */
    Layout layout() {
        if (nodes != null && testbed != null) {
            throw new CommandLine.ParameterException(spec.commandLine(), "give --nodes or --testbed, not both");
        }
        if (testbed != null) {
            Matcher m = BED.matcher(testbed);
            if (!m.matches()) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--testbed takes HOSTSxSLOTS like 2x2, not '" + testbed + "'");
            }
            return Layout.parse("testbed" + testbed);
        }
        if (!SIZES.matcher(nodes()).matches()) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "--nodes takes positive sizes like 8,3,3, not '" + nodes + "'");
        }
        // One virtual node of N is kept as such (HBCAST_NODE_SIZES=N), as the script always ran it.
        List<Integer> sizes;
        try {
            sizes = Arrays.stream(nodes().split(",")).map(Integer::valueOf).toList();
            int ranks = sizes.stream().mapToInt(Integer::intValue).reduce(0, Math::addExact);
            return new Layout("virtual" + nodes(), ranks, sizes, 0, List.of(), false);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--nodes " + nodes + ": too many ranks");
        }
    }

    private String nodes() {
        return nodes == null ? "2,2" : nodes;
    }
}
