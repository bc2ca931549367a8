package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.hbcast.plan.MemoryKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LearntPlansTest {
    private static final Fingerprint FP = TuningFixtures.fingerprint(TuningFixtures.TWO_BY_TWO);

    private static LearntPlans plans(String id) {
        return new LearntPlans(
                LearntPlans.FORMAT_VERSION,
                id,
                "2026-11-23T00:00:00Z",
                List.of(
                        new LearntPlans.Verdict(12, MemoryKind.HOST, "inline", 2e-6),
                        new LearntPlans.Verdict(20, MemoryKind.HOST, "hierarchical/fanout", 5e-4),
                        new LearntPlans.Verdict(12, MemoryKind.DEVICE, "native", 3e-5),
                        new LearntPlans.Verdict(24, MemoryKind.DEVICE, "hierarchical/ring", 2e-3)));
    }

    @Test
    void writtenPlansAreReadBackIntoTheInputs(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sub").resolve("learnt-" + FP.id() + ".json");
        plans(FP.id()).write(file);
        try (var listing = Files.list(file.getParent())) {
            assertEquals(1, listing.count(), "no temporary file is left beside it");
        }
        TuningInputs inputs = TuningFixtures.modelOnly(FP).withLearnt(file, Files.readAllBytes(file));
        assertTrue(inputs.warnings().isEmpty(), inputs.warnings().toString());
        assertEquals(plans(FP.id()), inputs.learnt());
        assertEquals(file, inputs.learntFile());
    }

    @Test
    void aMissingFileIsNoWarningAndNoPlans() {
        TuningInputs inputs = TuningFixtures.modelOnly(FP).withLearnt(Path.of("/nowhere/learnt.json"), null);
        assertNull(inputs.learnt());
        assertTrue(inputs.warnings().isEmpty());
    }

    @Test
    void anotherFingerprintAVersionOrNonsenseIsAWarningAndNoPlans() throws Exception {
        Path file = Path.of("/c/learnt.json");
        String other = TuningJson.mapper().writeValueAsString(plans("someoneelse"));
        String version = TuningJson.mapper().writeValueAsString(new LearntPlans(99, FP.id(), "x", List.of()));
        String negative = TuningJson.mapper()
                .writeValueAsString(new LearntPlans(
                        1, FP.id(), "x", List.of(new LearntPlans.Verdict(3, MemoryKind.HOST, "native", -1))));
        String[][] cases = {
            {other, "learnt on fingerprint someoneelse"},
            {version, "format version 99"},
            {negative, "incomplete or out of range"},
            {"{\"formatVersion\": 1, \"verd", "not a valid record of learnt plans"}
        };
        for (String[] c : cases) {
            TuningInputs inputs = TuningFixtures.modelOnly(FP).withLearnt(file, c[0].getBytes(StandardCharsets.UTF_8));
            assertNull(inputs.learnt(), c[1]);
            assertEquals(1, inputs.warnings().size(), c[1]);
            String w = inputs.warnings().get(0);
            assertTrue(w.contains(file.toString()) && w.contains(c[1]) && w.contains("trying the plans again"), w);
        }
    }

    @Test
    void theFileLiesInTheCacheByFingerprint() {
        assertEquals(
                Path.of("/x/learnt-" + FP.id() + ".json"),
                TuningFiles.learnt(java.util.Map.of(TuningFiles.CACHE_DIRECTORY_VARIABLE, "/x"), FP));
    }

    /** Device verdicts are read back under their kind, beside host verdicts of the same class. */
    @Test
    void deviceVerdictsKeepTheirKindBesideHostOnesOfTheSameClass(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("learnt-" + FP.id() + ".json");
        plans(FP.id()).write(file);
        String json = Files.readString(file);
        assertTrue(json.contains("\"DEVICE\"") && json.contains("\"HOST\""), json);
        LearntPlans read = TuningFixtures.modelOnly(FP)
                .withLearnt(file, Files.readAllBytes(file))
                .learnt();
        assertEquals("inline", read.verdict(MemoryKind.HOST, 12).choice());
        assertEquals("native", read.verdict(MemoryKind.DEVICE, 12).choice());
        assertEquals("hierarchical/ring", read.verdict(MemoryKind.DEVICE, 24).choice());
        assertNull(read.verdict(MemoryKind.HOST, 24));
        assertNull(read.verdict(MemoryKind.DEVICE, 20));
    }

    /** A record of version 1 (before device verdicts) names no kind: its verdicts are host verdicts. */
    @Test
    void aVersionOneRecordHoldsHostVerdicts() {
        String v1 = "{\"formatVersion\": 1, \"fingerprintId\": \"" + FP.id() + "\", \"created\": \"x\","
                + " \"verdicts\": [{\"sizeClass\": 20, \"choice\": \"native\", \"seconds\": 0.001}]}";
        TuningInputs inputs =
                TuningFixtures.modelOnly(FP).withLearnt(Path.of("/c/learnt.json"), v1.getBytes(StandardCharsets.UTF_8));
        assertTrue(inputs.warnings().isEmpty(), inputs.warnings().toString());
        assertEquals(
                List.of(new LearntPlans.Verdict(20, MemoryKind.HOST, "native", 1e-3)),
                inputs.learnt().verdicts());
    }

    /** Two verdicts for one kind and class, or a device verdict in a version 1 record, are refused. */
    @Test
    void twoVerdictsOfOneKindAndClassOrADeviceOneInVersionOneAreAWarning() throws Exception {
        Path file = Path.of("/c/learnt.json");
        String twice = TuningJson.mapper()
                .writeValueAsString(new LearntPlans(
                        LearntPlans.FORMAT_VERSION,
                        FP.id(),
                        "x",
                        List.of(
                                new LearntPlans.Verdict(20, MemoryKind.DEVICE, "native", 1e-3),
                                new LearntPlans.Verdict(20, MemoryKind.DEVICE, "knomial", 1e-3))));
        String deviceInV1 = TuningJson.mapper()
                .writeValueAsString(new LearntPlans(
                        1, FP.id(), "x", List.of(new LearntPlans.Verdict(20, MemoryKind.DEVICE, "native", 1e-3))));
        String[][] cases = {{twice, "two verdicts for device size class 20"}, {deviceInV1, "host verdicts only"}};
        for (String[] c : cases) {
            TuningInputs inputs = TuningFixtures.modelOnly(FP).withLearnt(file, c[0].getBytes(StandardCharsets.UTF_8));
            assertNull(inputs.learnt(), c[1]);
            assertTrue(
                    inputs.warnings().get(0).contains(c[1]), inputs.warnings().toString());
        }
    }
}
