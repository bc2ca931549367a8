package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import jcuda.LibUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JCuda's natives put in place whole, also by several processes at once (no GPU needed: nothing loads them). */
class JCudaNativesTest {
    private static byte[] resource(final Path file) throws IOException {
        try (InputStream in = LibUtils.class.getResourceAsStream("/lib/" + file.getFileName())) {
            return in.readAllBytes();
        }
    }

    private static List<Path> prepareIn(final Path dir) throws IOException {
        final String saved = System.getProperty("java.io.tmpdir");
        System.setProperty("java.io.tmpdir", dir.toString());
        try {
            return JCudaNatives.prepare();
        } finally {
            System.setProperty("java.io.tmpdir", saved);
        }
    }

    @Test
    void placesEachLibraryWholeUnderTheNameJCudaLoadsAndReplacesAHalfWrittenOne(@TempDir final Path dir)
            throws IOException {
        final List<Path> paths = prepareIn(dir);
        assertEquals(2, paths.size());
        for (final Path p : paths) {
            assertEquals(dir, p.getParent());
            assertTrue(
                    p.getFileName().toString().matches("libJCuda(Runtime|Driver)-[0-9.]+-linux-x86_64\\.so"),
                    p.toString());
            assertArrayEquals(resource(p), Files.readAllBytes(p), p + " differs from JCuda's jar");
        }
        // A crash (or an unlocked writer) left half a library: it is replaced, not loaded.
        final Path runtime = paths.get(0);
        final byte[] whole = Files.readAllBytes(runtime);
        Files.write(runtime, java.util.Arrays.copyOf(whole, whole.length / 3));
        prepareIn(dir);
        assertArrayEquals(whole, Files.readAllBytes(runtime));
        assertTrue(JCudaNatives.prepared());
    }

    @Test
    void ranksStartingTogetherAllFindWholeLibraries(@TempDir final Path dir) throws Exception {
        final String java =
                Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final List<Process> ranks = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            ranks.add(new ProcessBuilder(
                            java,
                            "-Djava.io.tmpdir=" + dir,
                            "-cp",
                            System.getProperty("java.class.path"),
                            JCudaNatives.class.getName())
                    .redirectErrorStream(true)
                    .start());
        }
        for (final Process p : ranks) {
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.waitFor(), out);
            assertEquals(2, out.lines().count(), out);
        }
        try (var files = Files.list(dir)) {
            for (final Path f : files.toList()) {
                final String name = f.getFileName().toString();
                assertTrue(name.endsWith(".so") || name.endsWith(".lock"), "left behind: " + name);
                if (name.endsWith(".so")) {
                    assertArrayEquals(resource(f), Files.readAllBytes(f), name);
                }
            }
        }
    }
}
