package org.hbcast.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.hbcast.bench.report.ProbeReport;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * UserProbe on real ranks: its cold-start lines and table, JSON that {@code scripts/compare}'s probe
 * report reads, and that report's rows, from a run beside Open MPI and one beside hbcast's plans.
 */
class UserProbeMpiTest {
    @Test
    void probeBesideOpenMpiAndBesideOwnPlansMakesTheReport(@TempDir Path dir) throws IOException {
        Path tuned = dir.resolve("tuned.json");
        MpiOutcome out = MpiLaunch.program(UserProbe.class)
                .nodeSizes("1,2")
                .args(
                        "-m",
                        "1024:65536",
                        "--blocks",
                        "3",
                        "--calls",
                        "5",
                        "--cold",
                        "2048",
                        "--impl",
                        "mpi,auto,mpi",
                        "--json",
                        tuned.toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        List<String> lines = out.output().lines().toList();
        assertTrue(
                lines.stream().anyMatch(l -> l.matches("^2048 +auto +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$")),
                out.output());
        assertEquals(
                7,
                lines.stream()
                        .filter(l -> l.matches("^\\d+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$"))
                        .count(),
                out.output());
        Path own = dir.resolve("hbcast.json");
        out = MpiLaunch.program(UserProbe.class)
                .nodeSizes("1,2")
                .args(
                        "-m",
                        "1024:65536",
                        "--blocks",
                        "3",
                        "--calls",
                        "5",
                        "--cold",
                        "0",
                        "--impl",
                        "auto,native,hierarchical/ring,hierarchical/fanout,auto",
                        "--json",
                        own.toString())
                .run();
        assertEquals(0, out.exitCode(), out.output());
        String md = ProbeReport.renderDirectory(dir);
        for (String size : List.of("1 KiB", "2 KiB", "4 KiB", "8 KiB", "16 KiB", "32 KiB", "64 KiB")) {
            assertTrue(
                    md.lines()
                            .anyMatch(l -> l.matches("\\| " + size + " \\| tuned \\|( [0-9.]+ \\|){4} [a-z/]+ \\|"
                                    + "( [0-9.]+ \\|){4}")),
                    size + " row in:\n" + md);
        }
        assertTrue(md.contains("| tuned | 2 KiB | auto |"), md);
    }
}
