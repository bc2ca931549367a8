package org.hbcast.bench.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** GpuVerdict, the verdict of scripts/gpu-test: it must never pass a GPU run silently. */
class GpuVerdictTest {
    @TempDir
    Path dir;

    private Path report(String... cases) throws IOException {
        StringBuilder xml = new StringBuilder("<testsuite name=\"org.hbcast.DeviceBcastMpiTest\">");
        for (String c : cases) {
            xml.append("<testcase classname=\"org.hbcast.DeviceBcastMpiTest\" name=\"")
                    .append(c)
                    .append("\">");
            if (c.startsWith("skipped")) {
                xml.append("<skipped message=\"no CUDA device: cudaGetDeviceCount: cudaErrorNoDevice (100)\"/>");
            } else if (c.startsWith("failed")) {
                xml.append("<failure message=\"byte 3 is 0\"/>");
            }
            xml.append("</testcase>");
        }
        Path f = Files.createTempFile(dir, "TEST-", ".xml");
        Files.writeString(f, xml.append("</testsuite>").toString());
        return f;
    }

    private Path counts(long slot, long direct, long virtualNodes) throws IOException {
        Path f = dir.resolve("gpu-verified.txt");
        Files.writeString(f, "slot " + slot + "\ndirect " + direct + "\nvirtual-nodes-staged " + virtualNodes + "\n");
        return f;
    }

    /** Exit status, then the output. */
    private static List<String> verdict(String... args) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int rc = GpuVerdict.verdict(args, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return List.of(Integer.toString(rc), bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void withAGpuEveryTestMustRunAndEveryPathVerifySomething() throws Exception {
        Path all = report("a", "b", "c");
        List<String> ok =
                verdict("--gpus", "1", "--verified", counts(120, 40, 60).toString(), all.toString());
        assertEquals("0", ok.get(0), ok.get(1));
        assertTrue(
                ok.get(1).contains("direct mode (32 MiB and above): 40 broadcasts verified byte for byte"), ok.get(1));
        assertTrue(ok.get(1).contains("gpu-test: PASS"), ok.get(1));

        List<String> skipped = verdict(
                "--gpus",
                "1",
                "--verified",
                counts(1, 1, 1).toString(),
                report("a", "skipped-b").toString());
        assertEquals("1", skipped.get(0), skipped.get(1));
        assertTrue(skipped.get(1).contains("1 GPU test(s) skipped although nvidia-smi lists 1 GPU(s)"), skipped.get(1));
        assertTrue(skipped.get(1).contains("skipped 1: no CUDA device: cudaGetDeviceCount"), skipped.get(1));

        List<String> none = verdict("--gpus", "2", "--verified", counts(0, 0, 0).toString());
        assertEquals("1", none.get(0), none.get(1));
        assertTrue(none.get(1).contains("no GPU test ran although nvidia-smi lists 2 GPU(s)"), none.get(1));

        List<String> noDirect =
                verdict("--gpus", "1", "--verified", counts(5, 0, 5).toString(), all.toString());
        assertEquals("1", noDirect.get(0), noDirect.get(1));
        assertTrue(noDirect.get(1).contains("no broadcast verified in direct mode"), noDirect.get(1));

        List<String> noCounts =
                verdict("--gpus", "1", "--verified", dir.resolve("absent.txt").toString(), all.toString());
        assertEquals("1", noCounts.get(0), noCounts.get(1));
        assertTrue(noCounts.get(1).contains("no counts of verified broadcasts"), noCounts.get(1));

        List<String> failed = verdict(
                "--gpus",
                "1",
                "--verified",
                counts(5, 5, 5).toString(),
                report("a", "failed-b").toString());
        assertEquals("1", failed.get(0), failed.get(1));
        assertTrue(failed.get(1).contains("FAILED org.hbcast.DeviceBcastMpiTest.failed-b"), failed.get(1));
    }

    @Test
    void withoutAGpuSkipsPassUnlessOneIsRequired() throws Exception {
        Path skippedAll = report("skipped-a", "skipped-b");
        List<String> here = verdict("--gpus", "0", skippedAll.toString());
        assertEquals("0", here.get(0), here.get(1));
        assertTrue(here.get(1).contains("no GPU here"), here.get(1));
        List<String> required = verdict("--gpus", "0", "--require", skippedAll.toString());
        assertEquals("1", required.get(0), required.get(1));
        assertTrue(required.get(1).contains("2 GPU test(s) skipped although HBCAST_REQUIRE_GPU=1"), required.get(1));
        assertEquals("2", verdict("no-gpus-argument.xml").get(0));
    }
}
