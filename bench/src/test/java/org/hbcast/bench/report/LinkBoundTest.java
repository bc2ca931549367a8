package org.hbcast.bench.report;

import static org.hbcast.bench.report.ComparisonMergeTest.TWO_NODES;
import static org.hbcast.bench.report.ComparisonMergeTest.hbcast;
import static org.hbcast.bench.report.ComparisonMergeTest.nativeRun;
import static org.hbcast.bench.report.ComparisonMergeTest.openMpi;
import static org.hbcast.bench.report.ComparisonMergeTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LinkBoundTest {
    /** 125 MB/s: 1 Gbit/s, so 1 MiB takes 8388.608 us at the bound. */
    private static final LinkBound GIGABIT = new LinkBound("h0", "h1", 125e6, 25);

    private static Comparison twoHosts(double autoAt4MiB) {
        long[] sizes = {1, Sizes.MIB, 4 * Sizes.MIB};
        Map<String, List<RunFile>> runs = new LinkedHashMap<>();
        runs.put("tuned", List.of(nativeRun(TWO_NODES, sizes, 30, 20000, 90000)));
        runs.put(
                Config.HBCAST,
                List.of(run(
                        TWO_NODES,
                        List.of("native", "auto"),
                        sizes,
                        new double[][] {{30, 25}, {20000, 9000}, {90000, autoAt4MiB}},
                        null)));
        return ComparisonMerge.merge("testbed2x2", List.of(openMpi("tuned", 1), hbcast(2)), runs);
    }

    @Test
    void theFractionIsTheBoundsTimeOverTheMeasuredOne() {
        assertEquals(8388.608, GIGABIT.boundUs(Sizes.MIB), 1e-9);
        assertEquals(0.5, GIGABIT.fraction(Sizes.MIB, 2 * 8388.608), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> new LinkBound("a", "b", 0, 1));
    }

    @Test
    void theReportGivesEveryColumnsFractionFrom64KiBAndTheGoalOnAuto() {
        // 4 MiB at the bound: 33554.432 us; auto at 36000 us reaches 93%, tuned at 90000 us 37%.
        String md = MarkdownReport.render(twoHosts(36000), GIGABIT);
        assertTrue(md.contains("the link bound is size / 125.0 MB/s (1.000 Gbit/s, h0 to h1"), md);
        assertTrue(md.contains("| 4 MiB | 33554.4 | 37% | 37% | 93% |"), md);
        assertFalse(md.contains("| 1 B | 0.0"), md);
        assertTrue(md.contains("auto >= 90% of the link bound: worst 93% at 4 MiB -> met"), md);
        String slow = MarkdownReport.render(twoHosts(50000), GIGABIT);
        assertTrue(slow.contains("auto >= 90% of the link bound: worst 67% at 4 MiB -> NOT met"), slow);
        // Without a measured link there is no such goal.
        assertFalse(MarkdownReport.render(twoHosts(36000)).contains("link bound"));
    }

    @Test
    void readsLinkProbesJsonAndNamesAFileThatIsNot(@TempDir Path dir) throws IOException {
        Path good = dir.resolve("link.json");
        Files.writeString(
                good, "{\"from\":\"h0\",\"to\":\"h1\",\"latencyUs\":24.3,\"bytesPerSecond\":1.188e8,\"messages\":8}");
        LinkBound b = LinkBound.read(good);
        assertEquals(1.188e8, b.bytesPerSecond());
        assertEquals("h1", b.to());
        Path bad = dir.resolve("other.json");
        Files.writeString(bad, "{\"sizes\":[1]}");
        IOException e = assertThrows(IOException.class, () -> LinkBound.read(bad));
        assertTrue(e.getMessage().contains("no bytesPerSecond"), e.getMessage());
        assertEquals("", b.relayNote(), "two hosts: no relay measured, nothing said");
    }

    @Test
    void theRelayWithEveryLinkBusySaysWhatTheBedDelivers(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("link.json");
        Files.writeString(
                file,
                "{\"from\":\"h0\",\"to\":\"h1\",\"latencyUs\":20,\"bytesPerSecond\":1.2e8,"
                        + "\"relayHosts\":8,\"relayBytesPerSecond\":6.0e7}");
        LinkBound capped = LinkBound.read(file);
        assertEquals(8, capped.relayHosts());
        String md = MarkdownReport.render(twoHosts(36000), capped);
        assertTrue(md.contains("all 8 hosts relaying a stream down a chain"), md);
        assertTrue(
                md.contains("each link carried 60.0 MB/s, 50% of the two-host figure: a guide to what this bed's"), md);
        assertTrue(md.contains("not a ceiling"), md);
        // The fractions stay those of the two-host bound: the relay explains a miss, it does not move the goal.
        assertTrue(md.contains("| 4 MiB | 34952.5 |"), md);
        String full = new LinkBound("h0", "h1", 1.2e8, 20, 3, 1.19e8).relayNote();
        assertTrue(full.contains("99% of the two-host figure."), full);
        assertFalse(full.contains("a guide"), full);
    }
}
