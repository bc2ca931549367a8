package org.hbcast.bench.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.hbcast.bench.experiment.GpuLeasePlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A GPU lease run on a bundle's bin/ of stand-ins: logs, summary lines, exit status. */
class GpuLeaseRunTest {
    private static void command(Path bin, String name, String body) throws IOException {
        Path f = bin.resolve(name);
        Files.writeString(f, "#!/usr/bin/env bash\n" + body + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static Path bundle(Path dir, String gpuTestBody) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        command(bin, "gpu-test", gpuTestBody);
        command(bin, "hbrun", "echo \"# hop $*\"");
        command(bin, "osu-bcast", "echo \"opts=$HBCAST_JVM_OPTS\"; echo '8388608 1.5 2.5'");
        return bin;
    }

    private static String run(GpuLeasePlan plan, int[] status) throws IOException {
        StringWriter out = new StringWriter();
        status[0] = new GpuLeaseRun(plan, new PrintWriter(out)).run();
        return out.toString();
    }

    @Test
    void everyStepLogsAndSummarizes(@TempDir Path dir) throws IOException {
        Path bin = bundle(dir, "echo \"require=$HBCAST_REQUIRE_GPU\"; echo 'gpu-test: PASS (15 of 15)'");
        Path results = dir.resolve("results");
        int[] status = new int[1];
        String out = run(new GpuLeasePlan(bin, results, false, Map.of()), status);
        assertEquals(0, status[0], out);
        assertTrue(out.contains("== gpu-test (at most 270 s)\n== gpu-test: exit 0\ngpu-test: PASS (15 of 15)\n"), out);
        assertTrue(out.contains("## one node, 8 ranks\n# hop -n 8 org.hbcast.bench.gpu.DeviceProbe\n"), out);
        assertTrue(out.contains("# hop -n 2 org.hbcast.bench.gpu.IpcMapCost -m 1048576 -i 50"), out);
        assertTrue(out.contains("## hbcast.device.directMinBytes=1073741824\n8388608 1.5 2.5\n"), out);
        assertTrue(out.contains("== mps: nvidia-cuda-mps-control not found, skipped"), out);
        assertTrue(out.endsWith("gpu-lease: logs in " + results + " (exit 0)\n"), out);
        assertTrue(Files.readString(results.resolve("gpu-test.log")).contains("require=1"));
        assertTrue(Files.readString(results.resolve("slots-vs-direct.log"))
                .contains("opts=-Dhbcast.device.directMinBytes=1048576"));
        assertTrue(Files.exists(results.resolve("machine.log")));
    }

    @Test
    void aFailedStepFailsTheLeaseAndTheRestStillRuns(@TempDir Path dir) throws IOException {
        Path bin = bundle(dir, "echo 'gpu-test: FAIL'; exit 1");
        int[] status = new int[1];
        String out = run(new GpuLeasePlan(bin, dir.resolve("r"), false, Map.of()), status);
        assertEquals(1, status[0], out);
        assertTrue(out.contains("== gpu-test: exit 1\ngpu-test: FAIL"), out);
        assertTrue(out.contains("== hops: exit 0"), out);
    }

    @Test
    void theListNamesEveryCommand() {
        StringWriter out = new StringWriter();
        GpuLeaseRun.list(new GpuLeasePlan(Path.of("/b"), Path.of("/r"), true, Map.of()), new PrintWriter(out));
        String text = out.toString();
        assertTrue(
                text.contains("gpu-test (at most 270 s, log /r/gpu-test.log)\n  HBCAST_REQUIRE_GPU=1 /b/gpu-test\n"),
                text);
        assertTrue(
                text.contains("  finally: CUDA_MPS_LOG_DIRECTORY=/r/mps-log CUDA_MPS_PIPE_DIRECTORY=/r/mps-pipe"
                        + " nvidia-cuda-mps-control <<< quit"),
                text);
    }
}
