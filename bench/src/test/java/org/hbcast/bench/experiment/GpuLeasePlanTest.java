package org.hbcast.bench.experiment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The GPU lease's steps: their order, limits (about 6 minutes in all), commands and summaries. */
class GpuLeasePlanTest {
    private static final Path BIN = Path.of("/b/bin");
    private static final Path DIR = Path.of("/r");

    @Test
    void theStepsInOrderAndTheirLimits() {
        List<GpuLeasePlan.Step> steps = new GpuLeasePlan(BIN, DIR, true, Map.of()).steps();
        assertEquals(
                List.of("machine", "gpu-test", "device-probe", "mps", "device-probe-trials", "hops", "slots-vs-direct"),
                steps.stream().map(GpuLeasePlan.Step::name).toList());
        assertEquals(
                List.of(60, 270, 180, 120, 60, 60, 90),
                steps.stream().map(GpuLeasePlan.Step::limitSeconds).toList());
        assertFalse(steps.get(0).counts());
        assertTrue(steps.subList(1, steps.size()).stream().allMatch(GpuLeasePlan.Step::counts));
        assertNull(steps.get(0).summary());
    }

    @Test
    void theGpuTestsAreRequired() {
        GpuLeasePlan.Step test =
                new GpuLeasePlan(BIN, DIR, false, Map.of()).steps().get(1);
        GpuLeasePlan.Command c = test.commands().get(0);
        assertEquals(List.of("/b/bin/gpu-test"), c.argv());
        assertEquals(Map.of("HBCAST_REQUIRE_GPU", "1"), c.env());
        assertEquals("^gpu-test:", test.summary());
    }

    @Test
    void hopsAndModes() {
        List<GpuLeasePlan.Step> steps = new GpuLeasePlan(BIN, DIR, false, Map.of()).steps();
        List<GpuLeasePlan.Command> probes = steps.get(2).commands();
        assertEquals(3, probes.size());
        assertEquals(
                List.of("/b/bin/hbrun", "-n", "8", "org.hbcast.bench.gpu.DeviceProbe"),
                probes.get(1).argv());
        assertEquals("2,2", probes.get(2).env().get("HBCAST_NODE_SIZES"));
        assertEquals(
                List.of(
                        "/b/bin/hbrun",
                        "-n",
                        "4",
                        "org.hbcast.bench.gpu.DeviceProbe",
                        "-m",
                        "1:4194304",
                        "--settle",
                        "220"),
                steps.get(4).commands().get(0).argv());
        assertEquals("0", probes.get(0).env().get("CUDA_VISIBLE_DEVICES"));
        assertEquals(
                List.of("/b/bin/hbrun", "-n", "2", "org.hbcast.bench.gpu.IpcMapCost", "-m", "16777216", "-i", "50"),
                steps.get(5).commands().get(1).argv());
        GpuLeasePlan.Command direct = steps.get(6).commands().get(1);
        assertEquals("## hbcast.device.directMinBytes=1048576", direct.note());
        assertEquals(Map.of("HBCAST_JVM_OPTS", "-Dhbcast.device.directMinBytes=1048576"), direct.env());
        assertEquals("/b/bin/osu-bcast", direct.argv().get(0));
        assertTrue(String.join(" ", direct.argv()).endsWith("-m 8388608:268435456 -i 20 -x 3 -f"));
    }

    @Test
    void withoutMpsItsStepIsSkippedWithWhy() {
        GpuLeasePlan.Step mps =
                new GpuLeasePlan(BIN, DIR, false, Map.of()).steps().get(3);
        assertEquals("nvidia-cuda-mps-control not found", mps.skipped());
        assertFalse(mps.counts());
    }

    @Test
    void underMpsTheDaemonIsRequiredAndAlwaysQuit() {
        GpuLeasePlan.Step mps = new GpuLeasePlan(BIN, DIR, true, Map.of("CUDA_VISIBLE_DEVICES", "3"))
                .steps()
                .get(3);
        assertNull(mps.skipped());
        GpuLeasePlan.Command daemon = mps.commands().get(0);
        assertEquals(List.of("nvidia-cuda-mps-control", "-d"), daemon.argv());
        assertTrue(daemon.required());
        assertEquals("/r/mps-pipe", daemon.env().get("CUDA_MPS_PIPE_DIRECTORY"));
        assertEquals("3", mps.commands().get(1).env().get("CUDA_VISIBLE_DEVICES"));
        assertEquals(
                List.of("/b/bin/ring-bandwidth", "8", "-m", "67108864", "-i", "20", "-x", "3"),
                mps.commands().get(3).argv());
        assertEquals("quit\n", mps.cleanup().get(0).input());
        assertEquals(List.of(DIR.resolve("mps-pipe"), DIR.resolve("mps-log")), mps.directories());
        assertEquals(
                "0",
                new GpuLeasePlan(BIN, DIR, true, Map.of())
                        .steps()
                        .get(3)
                        .commands()
                        .get(1)
                        .env()
                        .get("CUDA_VISIBLE_DEVICES"));
    }
}
