package org.hbcast.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jcuda.LibUtils;
import org.hbcast.GpuNatives;
import org.hbcast.device.IpcHandles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A program that loads JCuda itself ({@link JCudaFirstProgram}), several JVMs at once, in a temporary directory where an earlier
 * crash left half of JCuda's runtime library: JCuda's own loader loads that half and the rank dies
 * (SIGBUS, as seen on a GPU node; shown first), while
 * {@link GpuNatives#prepare()} called first, or the agent before {@code main}, puts the whole library
 * there. An IT: it needs the agent jar, made at package.
 */
class JCudaFirstIT {
    private static final int RANKS = 6;
    private static final Path AGENT_JAR = Path.of("target", "hbcast-agent.jar");

    /** Leaves the first 4 KiB of JCuda's runtime library under the name JCuda loads, as a crash would. */
    static Path halfWrittenRuntime(Path dir) throws IOException {
        String file = LibUtils.createLibraryFileName(
                LibUtils.createPlatformLibraryName("JCudaRuntime-" + IpcHandles.jcudaVersion()));
        try (InputStream in = LibUtils.class.getResourceAsStream("/lib/" + file)) {
            Path target = dir.resolve(file);
            Files.write(target, in.readNBytes(4096));
            return target;
        }
    }

    private static List<Process> startTogether(Path tmp, List<String> jvmOptions, String... args) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> ranks = new ArrayList<>();
        for (int i = 0; i < RANKS; i++) {
            List<String> cmd = new ArrayList<>(List.of(
                    java,
                    "-Djava.io.tmpdir=" + tmp,
                    // A rank that loads the half library dies of SIGBUS: its crash report goes with the directory.
                    "-XX:ErrorFile=" + tmp.resolve("hs_err_%p.log")));
            cmd.addAll(jvmOptions);
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), JCudaFirstProgram.class.getName()));
            cmd.addAll(List.of(args));
            ranks.add(new ProcessBuilder(cmd).redirectErrorStream(true).start());
        }
        return ranks;
    }

    private static String output(Process p) throws IOException {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    @Test
    void withoutPreparingJCudaLoadsTheHalfWrittenLibrary(@TempDir Path tmp) throws Exception {
        halfWrittenRuntime(tmp);
        for (Process p : startTogether(tmp, List.of())) {
            String out = output(p);
            assertNotEquals(0, p.waitFor(), "JCuda loaded a half-written library?\n" + out);
            assertTrue(out.contains("UnsatisfiedLinkError") || out.contains("SIGBUS"), out);
        }
    }

    @Test
    void preparingFirstLetsEveryRankLoadJCudaItself(@TempDir Path tmp) throws Exception {
        Path runtime = halfWrittenRuntime(tmp);
        for (Process p : startTogether(tmp, List.of(), "prepare")) {
            String out = output(p);
            assertEquals(0, p.waitFor(), out);
            assertTrue(out.contains("JCuda loaded: cudaGetDeviceCount returned"), out);
        }
        assertTrue(Files.size(runtime) > 4096, "the half-written library was not replaced");
    }

    @Test
    void underTheAgentEveryRankLoadsJCudaItselfUnprepared(@TempDir Path tmp) throws Exception {
        assertTrue(Files.isRegularFile(AGENT_JAR), "no agent jar at " + AGENT_JAR.toAbsolutePath());
        Path runtime = halfWrittenRuntime(tmp);
        for (Process p : startTogether(tmp, List.of("-javaagent:" + AGENT_JAR.toAbsolutePath()))) {
            String out = output(p);
            assertEquals(0, p.waitFor(), out);
            assertTrue(out.contains("JCuda loaded: cudaGetDeviceCount returned"), out);
        }
        assertTrue(Files.size(runtime) > 4096, "the agent did not replace the half-written library");
    }
}
