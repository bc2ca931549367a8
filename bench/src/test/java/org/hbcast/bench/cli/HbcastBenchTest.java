package org.hbcast.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.hbcast.bench.experiment.CompareSettings;
import org.hbcast.bench.experiment.Configuration;
import org.hbcast.bench.experiment.Layout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/**
 * hbcast-bench's command line: every experiment's options, their defaults and help, and the one-line
 * errors a bad one gets before anything runs (exit status 2).
 */
class HbcastBenchTest {
    /** Exit status, standard output and standard error of one command line. */
    private record Outcome(int code, String out, String err) {}

    private static Outcome execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = HbcastBench.commandLine(new HbcastBench());
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int code = cli.execute(args);
        return new Outcome(code, out.toString(), err.toString());
    }

    /** The subcommand object of {@code args}, parsed (not run). */
    @SuppressWarnings("unchecked")
    private static <T> T parsed(String... args) {
        CommandLine cli = HbcastBench.commandLine(new HbcastBench());
        CommandLine.ParseResult result = cli.parseArgs(args);
        return (T) result.subcommand().commandSpec().userObject();
    }

    @ParameterizedTest(name = "{0} --help")
    @ValueSource(strings = {"compare", "tune", "ocean", "soak", "simulate", "gpu-lease"})
    void everyExperimentHasHelp(String experiment) {
        Outcome o = execute(experiment, "--help");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().startsWith("Usage: hbcast-bench " + experiment), o.out());
    }

    @Test
    void theTopLevelListsTheExperimentsAndWantsOne() {
        Outcome help = execute("--help");
        for (String name : List.of("compare", "tune", "ocean", "soak", "simulate", "gpu-lease")) {
            assertTrue(help.out().contains("  " + name + " "), help.out());
        }
        Outcome none = execute();
        assertEquals(2, none.code());
        assertTrue(none.err().startsWith("hbcast: error: name an experiment"), none.err());
    }

    @Test
    void compareHelpKeepsTheScriptsOptions() {
        String help = execute("compare", "--help").out();
        for (String option : List.of(
                "--layout",
                "--rate",
                "--rounds",
                "--configs",
                "--impls",
                "--out",
                "--plot",
                "--timeout",
                "--probe-sizes",
                "--probe-calls",
                "--probe-blocks",
                "--probe-configs",
                "OSU_BCAST_OPTIONS")) {
            assertTrue(help.contains(option), option);
        }
        assertTrue(help.contains("(default 3)") && help.contains("(default 3600)"), help);
    }

    @Test
    void compareDefaultsAreTheScripts() {
        CompareSettings s = ((CompareCommand) parsed("compare")).settings();
        assertEquals(CompareSettings.MAIN, s.layout());
        assertEquals(3, s.rounds());
        assertEquals(List.of(Configuration.values()), s.configs());
        assertEquals("native,knomial,hierarchical,auto", s.impls());
        assertEquals(3600, s.timeoutSeconds());
        assertEquals("1:67108864", s.probeSizes());
        assertEquals(20, s.probeCalls());
        assertEquals(7, s.probeBlocks());
        assertEquals(List.of(), s.probeConfigs());
        assertEquals(List.of("-m", "1:67108864"), s.osu());
    }

    @Test
    void compareTakesEveryOption() {
        CompareSettings s = ((CompareCommand) parsed(
                        "compare",
                        "--layout",
                        "testbed2x2",
                        "--rate",
                        "1gbit",
                        "--rounds",
                        "1",
                        "--configs",
                        "tuned,hbcast",
                        "--impls",
                        "auto",
                        "--out",
                        "/tmp/o",
                        "--plot",
                        "/tmp/p.png",
                        "--timeout",
                        "60",
                        "--probe-sizes",
                        "1024:4096",
                        "--probe-calls",
                        "5",
                        "--probe-blocks",
                        "3",
                        "--probe-configs",
                        "hbcast",
                        "--",
                        "-m",
                        "1:4096",
                        "-i",
                        "10"))
                .settings();
        assertEquals(
                new CompareSettings(
                        "testbed2x2",
                        "1gbit",
                        1,
                        List.of(Configuration.TUNED, Configuration.HBCAST),
                        "auto",
                        Path.of("/tmp/o"),
                        Path.of("/tmp/p.png"),
                        60,
                        "1024:4096",
                        5,
                        3,
                        List.of(Configuration.HBCAST),
                        List.of("-m", "1:4096", "-i", "10")),
                s);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "compare --rounds 0|--rounds must be a positive whole number, not '0'",
                "compare --rounds x|Invalid value for option '--rounds': 'x' is not an int",
                "compare --configs tuned,native|unknown configuration 'native' in --configs",
                "compare --probe-configs x|unknown configuration 'x' in --probe-configs",
                "compare --layout node0|layout 'node0' is none of nodeN",
                "compare --layout node4 --rate 1gbit|--rate 1gbit shapes a test bed's links",
                "compare --bogus|Unknown option: '--bogus'",
                "compare -m 1:4|Unknown option: '-m'",
                "compare node4|unknown option 'node4' (OsuBcast options go after --)",
                "compare --layout node4 -- --impl auto|choose hbcast's implementations with --impls",
                "compare --layout node4 -- --json x|--json: the runner writes the JSON files itself",
                "compare --probe-sizes 1K|--probe-sizes takes [MIN:]MAX in bytes, or 0 for no probe, not '1K'",
                "compare --plot x.png|--plot names one plot",
                "tune --layout virtual0|layout 'virtual0' is none of nodeN",
                "tune --launches -1|--launches must be a whole number",
                "tune -n 4 --rate 1gbit|--rate 1gbit shapes a test bed's links",
                "tune --hosts 2 --slots 2,2,2|layout 'testbed2x2,2,2' names 2 hosts but 3 slot counts",
                "tune --validate|Unknown option: '--validate'",
                "ocean --layout cluster|layout 'cluster' is none of nodeN",
                "ocean --testbed 2|layout 'testbed2' is none of nodeN",
                "ocean --nodes 2,2 --rate 1gbit|--rate 1gbit shapes a test bed's links",
                "soak --nodes 2,2 --testbed 2x2|give --nodes or --testbed, not both",
                "soak --testbed 2x2,1|--testbed takes HOSTSxSLOTS like 2x2, not '2x2,1'",
                "soak --nodes 0,2|--nodes takes positive sizes like 8,3,3, not '0,2'",
                "soak --duration 10s|Unknown option: '--duration'",
                "nothing|Unmatched argument at index 0: 'nothing'"
            })
    void badArgumentsAreOneLineAndExitTwo(String args, String message) {
        Outcome o = execute(args.split(" "));
        assertEquals(2, o.code(), o.err());
        assertTrue(o.err().startsWith("hbcast: error: "), o.err());
        assertTrue(o.err().contains(message), o.err());
        assertTrue(o.err().strip().endsWith("--help)"), o.err());
        assertEquals("", o.out());
    }

    @Test
    void oceanPassesTheModelsOptionsWithOrWithoutDoubleDash() {
        OceanCommand ocean = parsed("ocean", "--nodes", "2,2", "--nx", "512", "-K", "1");
        assertEquals(Layout.parse("virtual2,2"), ocean.layout());
        assertEquals(List.of("org.hbcast.bench.ocean.OceanModel", "--nx", "512", "-K", "1"), ocean.program(false));
        assertEquals(
                List.of("org.hbcast.bench.ocean.OceanModel", "--nx", "512", "-K", "1", "--progress"),
                ocean.program(true));
        ocean = parsed("ocean", "--testbed", "2x2", "--rate", "1gbit", "--", "--nx", "8", "--no-progress");
        assertEquals(Layout.parse("testbed2x2"), ocean.layout());
        assertEquals(List.of("org.hbcast.bench.ocean.OceanModel", "--nx", "8", "--no-progress"), ocean.program(true));
    }

    @Test
    void oceansLayoutOptionsTheLastWins() {
        assertEquals("node4", ((OceanCommand) parsed("ocean")).layout().name());
        assertEquals(
                "node2", ((OceanCommand) parsed("ocean", "-n", "2")).layout().name());
        assertEquals(
                "node6",
                ((OceanCommand) parsed("ocean", "--nodes", "6")).layout().name());
        assertEquals(
                "testbed3x4,2,2",
                ((OceanCommand) parsed("ocean", "-n", "2", "--layout", "testbed3x4,2,2"))
                        .layout()
                        .name());
        assertEquals(
                "node8",
                ((OceanCommand) parsed("ocean", "--layout", "testbed2x2", "--np", "8"))
                        .layout()
                        .name());
    }

    @Test
    void tunesLayoutFromItsOptions() {
        assertEquals("node4", ((TuneCommand) parsed("tune")).layout().name());
        assertEquals("node8", ((TuneCommand) parsed("tune", "-n", "8")).layout().name());
        assertEquals(
                "node3", ((TuneCommand) parsed("tune", "--nodes", "3")).layout().name());
        assertEquals(
                "virtual2,2",
                ((TuneCommand) parsed("tune", "--nodes", "2,2")).layout().name());
        assertEquals(
                "testbed2x2",
                ((TuneCommand) parsed("tune", "--hosts", "2")).layout().name());
        assertEquals(
                "testbed3x4,2,2",
                ((TuneCommand) parsed("tune", "--hosts", "3", "--slots", "4,2,2"))
                        .layout()
                        .name());
        assertEquals(
                "testbed4x2-rr",
                ((TuneCommand) parsed("tune", "--hosts", "3", "--layout", "testbed4x2-rr"))
                        .layout()
                        .name());
    }

    @Test
    void tunesPlanFromItsOptions() {
        TuneCommand tune =
                parsed("tune", "--launches", "2", "--calibrate-args", " --passes 2  --x ", "--", "--sizes", "64K:64M");
        var plan = tune.plan(Path.of("/d"), Path.of("/s"));
        assertEquals(List.of("--passes", "2", "--x"), plan.calibrateArgs());
        assertEquals(List.of("--sizes", "64K:64M"), plan.tunerArgs());
        assertEquals(2, plan.launches());
        assertEquals(
                false,
                ((TuneCommand) parsed("tune", "--no-calibrate"))
                        .plan(null, Path.of("/s"))
                        .calibrate());
    }

    @Test
    void tuneExplainAndFingerprintAreItsSubcommands() {
        Outcome o = execute("tune", "explain", "--help");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().startsWith("Usage: hbcast-bench tune explain"), o.out());
        assertEquals(0, execute("tune", "fingerprint", "--help").code());
    }

    @Test
    void soaksLayouts() {
        assertEquals(Layout.parse("virtual2,2"), ((SoakCommand) parsed("soak")).layout());
        Layout one = ((SoakCommand) parsed("soak", "--nodes", "4")).layout();
        assertEquals(List.of(4), one.virtualNodes());
        assertEquals(4, one.ranks());
        assertEquals(Layout.parse("testbed2x3"), ((SoakCommand) parsed("soak", "--testbed", "2x3")).layout());
    }

    @Test
    void simulateIsTheSimulatorsOwnCommand() {
        Outcome o = execute("simulate", "targets", "--help");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().startsWith("Usage: hbcast-bench simulate targets"), o.out());
    }

    @Test
    void gpuLeaseListsItsSteps() {
        Outcome o = execute("gpu-lease", "--list", "--bin", "/b/bin", "/r");
        assertEquals(0, o.code(), o.err());
        assertTrue(o.out().startsWith("machine (at most 60 s, log /r/machine.log)\n  date -u\n"), o.out());
        assertTrue(
                o.out()
                        .contains(
                                "gpu-test (at most 270 s, log /r/gpu-test.log)\n  HBCAST_REQUIRE_GPU=1 /b/bin/gpu-test"),
                o.out());
        Outcome missing = execute("gpu-lease", "--bin", "/nonexistent/bin");
        assertEquals(2, missing.code());
        assertTrue(missing.err().startsWith("hbcast: error: no bundle commands in /nonexistent/bin"), missing.err());
    }
}
