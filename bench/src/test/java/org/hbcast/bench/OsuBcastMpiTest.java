package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.hbcast.bench.report.RunFile;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** OsuBcast on real ranks: OSU's output, validation, and JSON the comparison report can read. */
class OsuBcastMpiTest {
    @Test
    void singleImplementationPrintsOsuFormat(@TempDir Path dir) throws IOException {
        Path json = dir.resolve("run.json");
        MpiOutcome out = MpiLaunch.program(OsuBcast.class)
                .ranks(2)
                .args("-m", "1:16", "-i", "3", "-x", "1", "-f", "-c", "--impl", "native", "--json", json.toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        List<String> lines =
                out.output().lines().filter(l -> !l.startsWith("hbrun:")).toList();
        assertTrue(lines.contains("# OSU MPI Broadcast Latency Test v7.3"), out.output());
        assertTrue(lines.contains("# Datatype: MPI_BYTE."), out.output());
        assertTrue(
                lines.contains("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations"
                        + "        Validation"),
                out.output());
        List<String> rows = lines.stream().filter(l -> l.matches("^\\d+ .*")).toList();
        assertEquals(5, rows.size(), out.output());
        for (String row : rows) {
            assertTrue(row.matches("^\\d+ +\\d+\\.\\d{2} +\\d+\\.\\d{2} +\\d+\\.\\d{2} +3 +Pass$"), row);
        }
        RunFile run = RunFile.read(json);
        assertEquals(2, run.ranks());
        assertEquals(List.of("native"), run.impls());
        assertEquals(
                List.of(1L, 2L, 4L, 8L, 16L),
                run.samples().stream().map(RunFile.Sample::size).toList());
    }

    @Test
    void sideBySideWithMemcpyOnVirtualNodes(@TempDir Path dir) throws IOException {
        Path json = dir.resolve("run.json");
        MpiOutcome out = MpiLaunch.program(OsuBcast.class)
                .nodeSizes("1,1")
                .args(
                        "-m",
                        "4096:8192",
                        "-i",
                        "3",
                        "-x",
                        "1",
                        "-c",
                        "--impl",
                        "native,knomial,hierarchical,auto",
                        "--memcpy",
                        "--repeat",
                        "2",
                        "-k",
                        "1",
                        "--json",
                        json.toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        assertTrue(out.output().contains("native/auto"), out.output());
        RunFile run = RunFile.read(json);
        assertEquals(List.of("native", "knomial", "hierarchical", "auto"), run.impls());
        assertEquals(2, run.nodes().length);
        for (RunFile.Sample s : run.samples()) {
            assertTrue(s.memcpyUs() != null && s.memcpyUs() > 0, "memcpy measured at " + s.size());
            assertEquals(4, s.avgUs().size());
        }
    }

    /**
     * OMB-J's loop: back-to-back calls, each validated on every rank (a receiver that the root ran
     * ahead of would see the next call's bytes), a root other than 0, a size past the call header.
     */
    @Test
    void ombJsLoopRunsBackToBackAndEveryCallIsRight(@TempDir Path dir) throws IOException {
        Path json = dir.resolve("run.json");
        MpiOutcome out = MpiLaunch.program(OsuBcast.class)
                .ranks(3)
                .args(
                        "-m",
                        "8192:1048576",
                        "-i",
                        "20",
                        "-x",
                        "2",
                        "-c",
                        "-k",
                        "2",
                        "--loop",
                        "java",
                        "--impl",
                        "native,auto",
                        "--json",
                        json.toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        assertTrue(out.output().contains("OMB-J's loop (back to back, no barrier)"), out.output());
        RunFile run = RunFile.read(json);
        assertEquals(8, run.samples().size(), out.output());
        for (RunFile.Sample s : run.samples()) {
            for (double us : s.avgUs().values()) {
                assertTrue(us > 0, "a time at " + s.size() + ": " + out.output());
            }
        }
        MpiOutcome bad = MpiLaunch.program(OsuBcast.class)
                .ranks(2)
                .args("--loop", "fast")
                .run();
        assertTrue(bad.exitCode() != 0);
        assertTrue(bad.output().contains("--loop takes c or java, not fast"), bad.output());
    }

    @Test
    void badOptionsFailWithAMessage() {
        MpiOutcome out =
                MpiLaunch.program(OsuBcast.class).ranks(2).args("-m", "8:4").run();
        assertTrue(out.exitCode() != 0);
        assertTrue(out.output().contains("-m takes"), out.output());
    }
}
