package org.hbcast.bench.gpu;

import java.io.File;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.hbcast.transport.cuda.CudaRingMember;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The verdict of a GPU test run (scripts/gpu-test and the bundle's bin/gpu-test): it can never pass
 * a GPU run silently.
 *
 * <pre>
 *   GpuVerdict --gpus N [--require] [--verified FILE] REPORT.xml...
 *
 *   --gpus N       GPUs nvidia-smi listed (0 where there is no nvidia-smi)
 *   --require      HBCAST_REQUIRE_GPU=1: a GPU run is expected even where nvidia-smi lists none
 *   --verified F   "PATH COUNT" lines: broadcasts verified byte for byte per path (DeviceBcastMpiTest)
 *   REPORT.xml     JUnit XML reports (surefire's or the console launcher's) of the GPU tests
 * </pre>
 *
 * Where a GPU is expected, the run fails when any test failed, was skipped, or none ran, or when some
 * path verified no broadcast. Where none is expected, skipped tests pass and the reasons are printed.
 */
public final class GpuVerdict {
    private GpuVerdict() {}

    public static void main(String[] args) throws Exception {
        System.exit(verdict(args, System.out));
    }

    /** The verdict of {@code args}, printed to {@code out}: 0 pass, 1 fail, 2 bad arguments. */
    public static int verdict(String[] args, PrintStream out) throws Exception {
        int gpus = -1;
        boolean require = false;
        Path verified = null;
        List<Path> reports = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--gpus" -> gpus = Integer.parseInt(args[++i]);
                case "--require" -> require = true;
                case "--verified" -> verified = Path.of(args[++i]);
                default -> reports.add(Path.of(args[i]));
            }
        }
        if (gpus < 0) {
            out.println("gpu-verdict: --gpus N is required");
            return 2;
        }
        int run = 0, skipped = 0, failed = 0;
        Map<String, Integer> reasons = new LinkedHashMap<>();
        List<String> failures = new ArrayList<>();
        for (Path report : reports) {
            if (!Files.isRegularFile(report)) {
                continue;
            }
            NodeList cases = DocumentBuilderFactory.newInstance()
                    .newDocumentBuilder()
                    .parse(new File(report.toString()))
                    .getElementsByTagName("testcase");
            for (int c = 0; c < cases.getLength(); c++) {
                Element tc = (Element) cases.item(c);
                String name = tc.getAttribute("classname") + "." + tc.getAttribute("name");
                if (tc.getElementsByTagName("skipped").getLength() > 0) {
                    skipped++;
                    Element s = (Element) tc.getElementsByTagName("skipped").item(0);
                    String why = s.getAttribute("message").isEmpty()
                            ? s.getTextContent().strip()
                            : s.getAttribute("message");
                    why = why.isEmpty()
                            ? "no reason given"
                            : why.lines().findFirst().orElse("").replace("Assumption failed: ", "");
                    reasons.merge(why, 1, Integer::sum);
                } else if (tc.getElementsByTagName("failure").getLength() > 0
                        || tc.getElementsByTagName("error").getLength() > 0) {
                    failed++;
                    failures.add(name);
                } else {
                    run++;
                }
            }
        }
        boolean expectGpu = gpus > 0 || require;
        out.printf("gpu-test: %d tests passed, %d failed, %d skipped%n", run, failed, skipped);
        reasons.forEach((why, n) -> out.printf("gpu-test: skipped %d: %s%n", n, why));
        failures.forEach(f -> out.println("gpu-test: FAILED " + f));
        List<String> problems = new ArrayList<>();
        if (failed > 0) {
            problems.add(failed + " test(s) failed");
        }
        if (expectGpu) {
            String why = gpus > 0 ? "nvidia-smi lists " + gpus + " GPU(s)" : "HBCAST_REQUIRE_GPU=1";
            if (run + failed == 0) {
                problems.add("no GPU test ran although " + why);
            }
            if (skipped > 0) {
                problems.add(skipped + " GPU test(s) skipped although " + why);
            }
            Map<String, Long> counts = new LinkedHashMap<>();
            if (verified != null && Files.isRegularFile(verified)) {
                for (String line : Files.readAllLines(verified)) {
                    String[] f = line.trim().split("\\s+");
                    if (f.length == 2) {
                        counts.put(f[0], Long.parseLong(f[1]));
                    }
                }
            }
            if (counts.isEmpty()) {
                problems.add("no counts of verified broadcasts (" + verified + ")");
            }
            counts.forEach((path, n) -> {
                out.printf("gpu-test: %s: %d broadcasts verified byte for byte%n", label(path), n);
                if (n == 0) {
                    problems.add("no broadcast verified in " + label(path));
                }
            });
        } else if (run + failed == 0) {
            out.println("gpu-test: no GPU here (nvidia-smi lists none): the GPU tests were skipped, as expected;"
                    + " set HBCAST_REQUIRE_GPU=1 where they must run");
        }
        if (!problems.isEmpty()) {
            problems.forEach(p -> out.println("gpu-test: FAIL: " + p));
            return 1;
        }
        out.println("gpu-test: PASS");
        return 0;
    }

    private static String mib(long bytes) {
        return bytes % (1 << 20) == 0 ? (bytes >> 20) + " MiB" : bytes + " B";
    }

    private static String label(String path) {
        return switch (path) {
            case "slot" -> "slot mode (below " + mib(CudaRingMember.DIRECT_MIN_BYTES) + ")";
            case "direct" -> "direct mode (" + mib(CudaRingMember.DIRECT_MIN_BYTES) + " and above)";
            case "virtual-nodes-staged" -> "virtual nodes, leaders staging through the host";
            default -> path;
        };
    }
}
