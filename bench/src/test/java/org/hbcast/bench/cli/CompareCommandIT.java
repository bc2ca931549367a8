package org.hbcast.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code hbcast-bench compare} end to end on one node of 4 ranks, tiny: real scripts/hbrun launches
 * (the selection check, a round of each configuration, the probe beside each), then the report.
 * An integration test: the launches use the packaged build's classpath, as scripts/compare does.
 */
class CompareCommandIT {
    @Test
    void aTinyComparisonOnOneNodeWritesEverySection(@TempDir Path dir) throws IOException {
        assumeTrue(
                Boolean.parseBoolean(System.getProperty("hbcast.mpi.tests", "true")),
                "MPI tests switched off with -Dhbcast.mpi.tests=false");
        Path out = dir.resolve("out");
        Path plot = dir.resolve("plot.png");
        StringWriter stdout = new StringWriter();
        CommandLine cli = HbcastBench.commandLine(new HbcastBench());
        cli.setOut(new PrintWriter(stdout, true));
        int code = cli.execute(
                "compare",
                "--layout",
                "node4",
                "--rounds",
                "1",
                "--configs",
                "tuned,hbcast",
                "--timeout",
                "300",
                "--probe-sizes",
                "1024:4096",
                "--probe-calls",
                "5",
                "--probe-blocks",
                "3",
                "--out",
                out.toString(),
                "--plot",
                plot.toString(),
                "--",
                "-m",
                "1:4096",
                "-i",
                "20",
                "-x",
                "2");
        assertEquals(0, code);

        String report = Files.readString(out.resolve("compare.md"));
        assertTrue(report.startsWith("# node4\n\n## Both methods: never slower, however it is measured"), report);
        assertTrue(
                report.indexOf("## Both methods") < report.indexOf("## Headline, as users call it"),
                "the summary of both methods comes before the headline:\n" + report);
        for (String section : List.of(
                "## Headline, as users call it",
                "## As users call it: the user-style probe",
                "### Second view, OSU's method")) {
            assertTrue(report.contains(section), section + " missing:\n" + report);
        }
        assertTrue(
                report.indexOf("## As users call it") < report.indexOf("### Second view"),
                "the probe's table leads:\n" + report);
        assertTrue(Files.readString(out.resolve("tuned/config.properties"))
                .contains("selected=coll/tuned selected for MPI_COMM_WORLD in every process"));
        assertTrue(Files.readString(out.resolve("tuned/probe.log")).contains("coll:base:comm_select"));
        for (String file : List.of(
                "tuned/round-1.json",
                "tuned/round-1.txt",
                "hbcast/round-1.json",
                "hbcast/config.properties",
                "probe/tuned.json",
                "probe/hbcast.json",
                "probe/tuned.txt",
                "probe.md",
                "osu.md",
                "merged.json")) {
            assertTrue(Files.isRegularFile(out.resolve(file)), file);
        }
        assertTrue(Files.size(plot) > 1000);
    }
}
