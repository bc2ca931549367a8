package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.CostModel;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.TuningFixtures;
import org.junit.jupiter.api.Test;

/**
 * Staging through the host is a candidate of every device call: over layouts (one node, several,
 * virtual nodes), GPUs per host and every size from 1 B to 256 MiB, the device plan is never
 * predicted slower than staging, staging runs exactly where the model finds it fastest, and
 * {@code explainDevice} names its terms and whether it won or lost.
 */
class DeviceStagingSelectionTest {
    private static final List<String> LAYOUTS =
            List.of("1x2", "1x4", "1x8", "2x2", "2x2 virtual", "3x3", "8+3+3", "4x1", "2x4 virtual");

    @Test
    void aDevicePlanIsNeverPredictedSlowerThanStagingAtAnySize() {
        for (String layout : LAYOUTS) {
            ClusterShape shape = ClusterShape.parse(layout);
            for (int gpus : new int[] {1, 2, 8}) {
                Selector s = selector(shape, gpus, Choices.AUTO);
                CostModel model = model(shape, gpus);
                for (long m = 1; m <= 256L << 20; m = m < 16 ? m + 1 : m * 2 - (m % 3 == 0 ? 1 : 0)) {
                    Plan p = s.plan(m, MemoryKind.DEVICE);
                    // Plans are made per power-of-two bucket: compare at the bucket's own size.
                    long bucket = Long.highestOneBit(m);
                    double staging = model.staging(bucket, shape);
                    String where = layout + ", " + gpus + " GPUs, " + m + " B: " + p;
                    assertTrue(p.predictedSeconds() <= staging * (1 + 1e-9), where + " vs staging " + staging);
                    assertEquals(
                            p.algorithm() == Algorithm.NATIVE,
                            p.predictedSeconds() >= staging * (1 - 1e-9),
                            where + ": staging runs where it is fastest");
                }
            }
        }
    }

    @Test
    void ranksSharingOneGpuStageSmallMessagesAndRideTheRingFromSixteenMebibytes() {
        ClusterShape shape = ClusterShape.parse("1x4");
        Selector shared = selector(shape, 1, Choices.AUTO);
        Selector ownGpu = selector(shape, 4, Choices.AUTO);
        for (long m = 1; m <= 64 << 10; m *= 4) {
            assertEquals(Algorithm.NATIVE, shared.plan(m, MemoryKind.DEVICE).algorithm(), m + " B on one GPU");
        }
        for (long m = 16L << 20; m <= 256L << 20; m *= 2) {
            assertEquals(
                    Algorithm.HIERARCHICAL, shared.plan(m, MemoryKind.DEVICE).algorithm(), m + " B on one GPU");
            assertEquals(
                    Algorithm.HIERARCHICAL, ownGpu.plan(m, MemoryKind.DEVICE).algorithm(), m + " B, a GPU each");
        }
        assertTrue(
                ownGpu.plan(256 << 10, MemoryKind.DEVICE).predictedSeconds()
                        < shared.plan(256 << 10, MemoryKind.DEVICE).predictedSeconds(),
                "a GPU per rank pays no context switch per hop");
    }

    @Test
    void explainDeviceNamesTheStagingCandidateAndWhyItWonOrLost() {
        ClusterShape shape = ClusterShape.parse("1x4");
        Selector s = selector(shape, 1, Choices.AUTO);
        String small = s.explain(4096, MemoryKind.DEVICE).text();
        assertTrue(small.contains("chosen:      native"), small);
        assertTrue(small.contains("staging:     device to host and back"), small);
        assertTrue(small.contains(": chosen, the fastest; ranks share a GPU"), small);
        assertTrue(small.contains("(staged through the host)"), small);
        String large = s.explain(64L << 20, MemoryKind.DEVICE).text();
        assertTrue(large.contains("chosen:      hierarchical/ring"), large);
        assertTrue(large.matches("(?s).*staging: .*: lost, [0-9.]+x the chosen plan's .*"), large);
        String fixed = selector(shape, 1, Choices.AUTO.withAlgorithm(Algorithm.HIERARCHICAL))
                .explain(4096, MemoryKind.DEVICE)
                .text();
        assertTrue(fixed.contains("not a candidate, the options fix the algorithm"), fixed);
        String host = s.explain(4096, MemoryKind.HOST).text();
        assertTrue(!host.contains("staging:"), host);
    }

    private static Selector selector(ClusterShape shape, int gpus, Choices options) {
        return new Selector(
                options.planChoices(),
                shape,
                Selector.AUTO_MAX_CHUNK_BYTES,
                TuningFixtures.modelOnly(Fingerprint.of(host(gpus), shape)));
    }

    private static CostModel model(ClusterShape shape, int gpus) {
        return new CostModel(
                TuningFixtures.modelOnly(Fingerprint.of(host(gpus), shape)).calibration(), 16, gpus);
    }

    private static HostInfo host(int gpus) {
        return new HostInfo("Test CPU 9000", 16, "Test GPU", gpus, "Open MPI 4.1.4");
    }
}
