package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plan of a comparison: which launches, with what, in which order. */
class ComparePlanTest {
    private static final Path OUT = Path.of("/out");
    private static final List<Configuration> ALL = List.of(Configuration.values());

    private static ComparePlan plan(Settings s) {
        return ComparePlan.of(s.build(), OUT);
    }

    private static List<String> titles(List<Launch> launches) {
        return launches.stream().map(Launch::title).toList();
    }

    @Test
    void everyOpenMpiConfigurationIsCheckedFirstInOrder() {
        List<Launch> checks = plan(new Settings()).selectionChecks();
        assertEquals(
                List.of(Configuration.TUNED, Configuration.TUNED_KNOMIAL, Configuration.ADAPT, Configuration.HAN),
                checks.stream().map(Launch::configuration).toList());
        Launch knomial = checks.get(1);
        assertEquals(Launch.Kind.SELECTION_CHECK, knomial.kind());
        assertEquals(
                List.of(
                        "--mca",
                        "coll_tuned_use_dynamic_rules",
                        "1",
                        "--mca",
                        "coll_tuned_bcast_algorithm",
                        "7",
                        "--mca",
                        "coll_base_verbose",
                        "10",
                        "org.hbcast.bench.TopologyReport"),
                knomial.program());
        assertEquals(OUT.resolve("tuned-knomial/probe.log"), knomial.output());
        assertNull(knomial.json());
        assertEquals(false, knomial.teed());
        assertEquals(Map.of(), knomial.environment());
    }

    @Test
    void roundsInterleaveTheConfigurationsThenTheProbesFollow() {
        List<Launch> launches = plan(new Settings()).measurements(ALL);
        assertEquals(
                List.of(
                        "[1/15] round 1/3: tuned",
                        "[2/15] round 1/3: tuned-knomial",
                        "[3/15] round 1/3: adapt",
                        "[4/15] round 1/3: han",
                        "[5/15] round 1/3: hbcast",
                        "[6/15] round 2/3: tuned",
                        "[7/15] round 2/3: tuned-knomial",
                        "[8/15] round 2/3: adapt",
                        "[9/15] round 2/3: han",
                        "[10/15] round 2/3: hbcast",
                        "[11/15] round 3/3: tuned",
                        "[12/15] round 3/3: tuned-knomial",
                        "[13/15] round 3/3: adapt",
                        "[14/15] round 3/3: han",
                        "[15/15] round 3/3: hbcast",
                        "user-style probe: tuned (mpi,auto,mpi)",
                        "user-style probe: tuned-knomial (mpi,auto,mpi)",
                        "user-style probe: adapt (mpi,auto,mpi)",
                        "user-style probe: han (mpi,auto,mpi)",
                        "user-style probe: hbcast (auto,native,knomial,hierarchical/ring,hierarchical/fanout,auto)"),
                titles(launches));
    }

    @Test
    void aRoundOfOpenMpiAndOneOfHbcast() {
        Settings s = new Settings();
        s.osu = List.of("-m", "1:4096", "-i", "10");
        List<Launch> launches = plan(s).measurements(List.of(Configuration.HAN, Configuration.HBCAST));
        Launch han = launches.get(0);
        assertEquals(Launch.Kind.ROUND, han.kind());
        assertEquals(1, han.round());
        assertEquals(
                List.of(
                        "--mca",
                        "coll_han_priority",
                        "100",
                        "org.hbcast.bench.OsuBcast",
                        "--loop",
                        "java",
                        "--impl",
                        "native",
                        "-m",
                        "1:4096",
                        "-i",
                        "10",
                        "--json",
                        "/out/han/round-1.json"),
                han.program());
        assertEquals(OUT.resolve("han/round-1.txt"), han.output());
        assertEquals(OUT.resolve("han/round-1.json"), han.json());
        assertTrue(han.teed());
        Launch hbcast = launches.get(1);
        assertEquals(
                List.of(
                        "org.hbcast.bench.OsuBcast",
                        "--loop",
                        "java",
                        "--impl",
                        "native,knomial,hierarchical,auto",
                        "--memcpy",
                        "-m",
                        "1:4096",
                        "-i",
                        "10",
                        "--json",
                        "/out/hbcast/round-1.json"),
                hbcast.program());
        assertEquals(2, launches.get(3).round());
        // Options after -- that name the loop keep it.
        s.osu = List.of("--loop", "c");
        List<String> own =
                plan(s).measurements(List.of(Configuration.HBCAST)).get(0).program();
        assertEquals(1, own.stream().filter("--loop"::equals).count(), own.toString());
        assertEquals("c", own.get(own.indexOf("--loop") + 1));
    }

    @Test
    void theProbeRunsOnAnEmptyCache() {
        Settings s = new Settings();
        s.rounds = 1;
        s.probeSizes = "1024:4096";
        s.probeCalls = 5;
        s.probeBlocks = 3;
        List<Launch> launches = plan(s).measurements(List.of(Configuration.ADAPT));
        Launch probe = launches.get(1);
        assertEquals(Launch.Kind.USER_PROBE, probe.kind());
        assertEquals(
                List.of(
                        "--mca",
                        "coll_adapt_priority",
                        "100",
                        "org.hbcast.bench.UserProbe",
                        "-m",
                        "1024:4096",
                        "--impl",
                        "mpi,auto,mpi",
                        "--calls",
                        "5",
                        "--blocks",
                        "3",
                        "--json",
                        "/out/probe/adapt.json"),
                probe.program());
        assertEquals(OUT.resolve("probe/adapt.txt"), probe.output());
        assertEquals(OUT.resolve("probe/empty-cache"), probe.freshCache());
        assertEquals(Map.of("HBCAST_CACHE_DIR", "/out/probe/empty-cache"), probe.environment());
    }

    @Test
    void probeConfigsChooseAmongTheMeasuredAndZeroSkipsTheProbe() {
        Settings s = new Settings();
        s.rounds = 1;
        s.probeConfigs = List.of(Configuration.HBCAST, Configuration.HAN);
        List<Launch> launches = plan(s).measurements(List.of(Configuration.TUNED, Configuration.HBCAST));
        assertEquals(
                List.of(
                        "[1/2] round 1/1: tuned",
                        "[2/2] round 1/1: hbcast",
                        "user-style probe: hbcast (auto,native,knomial,hierarchical/ring,hierarchical/fanout,auto)"),
                titles(launches));
        s.probeSizes = "0";
        assertEquals(
                2,
                plan(s).measurements(List.of(Configuration.TUNED, Configuration.HBCAST))
                        .size());
    }

    @Test
    void onABedTheLinkBoundIsMeasuredFirst() {
        Settings s = new Settings();
        s.layout = "testbed3x4,2,2";
        s.rounds = 1;
        s.probeSizes = "0";
        List<Launch> launches = plan(s).measurements(List.of(Configuration.TUNED));
        Launch link = launches.get(0);
        assertEquals(Launch.Kind.LINK_PROBE, link.kind());
        assertEquals(List.of("org.hbcast.bench.LinkProbe", "--json", "/out/link.json"), link.program());
        assertEquals(OUT.resolve("link.txt"), link.output());
        assertEquals(List.of("link bound: LinkProbe between two hosts", "[1/1] round 1/1: tuned"), titles(launches));
        assertEquals(Layout.parse("testbed3x4,2,2"), plan(s).layout());
    }

    @Test
    void nothingMeasuredNothingRuns() {
        Settings s = new Settings();
        assertEquals(List.of(), plan(s).measurements(List.of()));
        s.configs = List.of(Configuration.HBCAST);
        assertEquals(List.of(), plan(s).selectionChecks());
    }
}
