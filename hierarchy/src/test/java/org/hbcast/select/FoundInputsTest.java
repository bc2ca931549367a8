package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.hbcast.plan.MemoryKind;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.LearntPlans;
import org.hbcast.tuning.TuningInputs;
import org.junit.jupiter.api.Test;

class FoundInputsTest {
    private static final Fingerprint FINGERPRINT = Fingerprint.of(
            new HostInfo("Test CPU 9000 \u00e9", 16, "NVIDIA H100 + NVIDIA A100", 2, "Open MPI 4.1.4"),
            ClusterShape.parse("4,2,2"));

    @Test
    void aFreshMachineHasNoFilesAndRoundTrips() throws IOException {
        FoundInputs found = new FoundInputs(
                FINGERPRINT, null, null, false, "/cache/calibration-x.json", null, List.of(), null, null);
        FoundInputs back = FoundInputs.decode(found.encode());
        assertEquals(FINGERPRINT.canonical(), back.fingerprint().canonical());
        assertEquals(FINGERPRINT.id(), back.fingerprint().id());
        assertNull(back.tablePath());
        assertNull(back.table());
        assertEquals("/cache/calibration-x.json", back.calibrationPath());
        assertNull(back.calibration());
        assertEquals(List.of(), back.warnings());
        assertNull(back.learntPath());
        assertNull(back.learnt());
        assertEquals(
                found.inputs().calibration().toString(),
                back.inputs().calibration().toString());
    }

    @Test
    void theSameAgreedBytesGiveTheSameInputs() throws IOException {
        // Selector.of remembers plans by their inputs: the same object costs no comparison of records.
        byte[] packet = new FoundInputs(
                        FINGERPRINT, null, null, false, "/cache/calibration-y.json", null, List.of(), null, null)
                .encode();
        TuningInputs first = TuningAgreement.decoded(packet);
        assertSame(first, TuningAgreement.decoded(packet.clone()));
        byte[] other = new FoundInputs(
                        FINGERPRINT, null, null, false, "/cache/calibration-z.json", null, List.of(), null, null)
                .encode();
        TuningInputs second = TuningAgreement.decoded(other);
        assertNotSame(first, second);
        assertEquals("/cache/calibration-z.json", second.calibrationSource().split("; no calibration at ")[1]);
    }

    @Test
    void everyFieldRoundTrips() throws IOException {
        byte[] table = "{\"table\": 1}".getBytes(StandardCharsets.UTF_8);
        byte[] calibration = new byte[70_000];
        Arrays.fill(calibration, (byte) 7);
        LearntPlans learnt = new LearntPlans(
                LearntPlans.FORMAT_VERSION,
                FINGERPRINT.id(),
                "2026-11-25T15:00:00Z",
                List.of(
                        new LearntPlans.Verdict(3, MemoryKind.HOST, "inline", 1.5e-6),
                        new LearntPlans.Verdict(20, MemoryKind.HOST, "hierarchical/ring", 0.01),
                        new LearntPlans.Verdict(20, MemoryKind.DEVICE, "native", 0.02)));
        FoundInputs found = new FoundInputs(
                FINGERPRINT,
                "/t/tuning.json",
                table,
                true,
                "/t/calibration.json",
                calibration,
                List.of("hbcast: warning: one", "hbcast: warning: two \u2014 long ".repeat(3000)),
                "/t/learnt.json",
                learnt);
        FoundInputs back = FoundInputs.decode(found.encode());
        assertEquals(FINGERPRINT.canonical(), back.fingerprint().canonical());
        assertEquals("/t/tuning.json", back.tablePath());
        assertArrayEquals(table, back.table());
        assertTrue(back.requested());
        assertEquals("/t/calibration.json", back.calibrationPath());
        assertArrayEquals(calibration, back.calibration());
        assertEquals(found.warnings(), back.warnings());
        assertEquals("/t/learnt.json", back.learntPath());
        assertEquals(learnt, back.learnt());
        assertEquals(learnt, back.inputs().learnt());
    }

    @Test
    void refusesWhatIsNotAPacket() {
        byte[] good = new FoundInputs(FINGERPRINT, null, null, false, null, null, List.of("w"), null, null).encode();
        assertThrows(IOException.class, () -> FoundInputs.decode("{\"json\": true}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IOException.class, () -> FoundInputs.decode(Arrays.copyOf(good, good.length - 3)));
        assertThrows(IOException.class, () -> FoundInputs.decode(Arrays.copyOf(good, good.length + 1)));
        byte[] huge = good.clone();
        huge[4] = 0x7f; // the first string's length
        assertThrows(IOException.class, () -> FoundInputs.decode(huge));
    }
}
