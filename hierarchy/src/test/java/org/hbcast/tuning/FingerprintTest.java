package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FingerprintTest {
    private static final ClusterShape SHAPE = TuningFixtures.TWO_BY_TWO;

    @Test
    void stableAndCanonical() throws Exception {
        Fingerprint a = Fingerprint.of(new HostInfo("AMD  EPYC\t7763", 16, "", 0, "Open MPI 4.1.4"), SHAPE);
        Fingerprint b =
                Fingerprint.of(new HostInfo("AMD EPYC 7763", 16, null, 0, "Open MPI 4.1.4"), ClusterShape.parse("2,2"));
        assertEquals(a, b);
        assertEquals(a.canonical(), b.canonical());
        assertEquals(a.id(), b.id());
        assertEquals(12, a.id().length());
        assertEquals(
                "cpu=AMD EPYC 7763; cpus=16; gpu=none; gpus=0; mpi=Open MPI 4.1.4; links=shared-memory,"
                        + "mpi-shared-memory,network; layout=2x2",
                a.canonical());
        ObjectMapper json = TuningJson.mapper();
        Fingerprint back = json.readValue(json.writeValueAsBytes(a), Fingerprint.class);
        assertEquals(a.canonical(), back.canonical());
    }

    @Test
    void differsWhenAnyElementDiffers() {
        List<Fingerprint> all = List.of(
                Fingerprint.of(TuningFixtures.HOST, SHAPE),
                Fingerprint.of(new HostInfo("Other CPU", 16, "", 0, "Open MPI 4.1.4"), SHAPE),
                Fingerprint.of(new HostInfo("Test CPU 9000", 8, "", 0, "Open MPI 4.1.4"), SHAPE),
                Fingerprint.of(new HostInfo("Test CPU 9000", 16, "NVIDIA H100", 1, "Open MPI 4.1.4"), SHAPE),
                Fingerprint.of(new HostInfo("Test CPU 9000", 16, "NVIDIA H100", 2, "Open MPI 4.1.4"), SHAPE),
                Fingerprint.of(new HostInfo("Test CPU 9000", 16, "", 0, "Open MPI 5.0.3"), SHAPE),
                Fingerprint.of(TuningFixtures.HOST, ClusterShape.parse("1x4")),
                Fingerprint.of(TuningFixtures.HOST, ClusterShape.parse("2x2 virtual")),
                Fingerprint.of(TuningFixtures.HOST, ClusterShape.parse("3+1")));
        Set<String> ids = all.stream().map(Fingerprint::id).collect(Collectors.toSet());
        assertEquals(all.size(), ids.size());
        assertNotEquals(all.get(0).hardwareId(), all.get(1).hardwareId());
        assertEquals(all.get(0).hardwareId(), all.get(6).hardwareId(), "the layout is not hardware");
    }

    @Test
    void linksFollowTheLayoutAndTheGpus() {
        assertEquals(
                List.of("shared-memory", "mpi-shared-memory"),
                Fingerprint.of(TuningFixtures.HOST, ClusterShape.parse("1x4")).links());
        assertEquals(
                List.of("network"),
                Fingerprint.of(TuningFixtures.HOST, ClusterShape.parse("4x1")).links());
        Fingerprint gpu =
                Fingerprint.of(new HostInfo("c", 4, "NVIDIA H100", 1, "Open MPI 4.1.4"), ClusterShape.parse("2x2"));
        assertTrue(gpu.links().containsAll(List.of("cuda-ipc", "pcie", "network")));
    }

    @Test
    void mpiVersionsAreNormalized() {
        assertEquals(
                "Open MPI 4.1.4",
                HostInfo.normalizeMpiVersion(
                        "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"));
        assertEquals("Open MPI 4.1.4", HostInfo.normalizeMpiVersion("mpirun (Open MPI) 4.1.4\n\nReport bugs"));
        assertEquals("unknown", HostInfo.normalizeMpiVersion(null));
    }

    @Test
    void theProbeOfThisHostIsStable() {
        HostInfo a = HostInfo.probe("Open MPI v4.1.4");
        HostInfo b = HostInfo.probe("Open MPI v4.1.4");
        assertEquals(a, b);
        assertTrue(a.cpus() >= 1);
    }

    @Test
    void shortIdsAreTwelveHexDigitsPinnedAndSpread() {
        // Pinned: the cache's file names of every existing cache follow from it.
        assertEquals(
                "424ec12e4c7f", Fingerprint.shortHash("cpu=AMD EPYC; cpus=2; gpu=none; gpus=0; mpi=Open MPI 4.1.4"));
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String id = Fingerprint.shortHash("layout=" + i);
            assertTrue(id.matches("[0-9a-f]{12}"), id);
            ids.add(id);
        }
        assertEquals(10_000, ids.size(), "ids of 10,000 layouts collide");
        // One character apart, about half of the 48 bits differ.
        long x = Long.parseLong(Fingerprint.shortHash("layout=4,2,2"), 16);
        long y = Long.parseLong(Fingerprint.shortHash("layout=4,2,3"), 16);
        int differ = Long.bitCount(x ^ y);
        assertTrue(differ > 12 && differ < 36, differ + " bits differ");
    }
}
