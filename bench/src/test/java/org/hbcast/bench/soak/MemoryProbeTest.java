package org.hbcast.bench.soak;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak's descriptor probe: a descriptor held open is counted, and one opened between two probes is named. */
class MemoryProbeTest {
    @Test
    void addedCountsOneForOne() {
        assertEquals(
                List.of("/dev/urandom"),
                MemoryProbe.added(List.of("a", "socket:[1]"), List.of("a", "/dev/urandom", "socket:[1]")));
        assertEquals(List.of("a"), MemoryProbe.added(List.of("a"), List.of("a", "a")), "a second one of the same");
        assertEquals(List.of(), MemoryProbe.added(List.of("a", "b"), List.of("a")), "closed ones are not added");
    }

    /** The resident set's parts come from /proc/self/status; without -XX:NativeMemoryTracking there is no NMT figure. */
    @Test
    void theResidentSetIsSplitIntoAnonymousAndShared() {
        MemoryProbe m = MemoryProbe.measure();
        assertTrue(m.anonBytes() > 0 && m.shmemBytes() >= 0, m::toString);
        assertTrue(m.anonBytes() + m.shmemBytes() <= m.rssBytes(), m::toString);
        assertEquals(m, MemoryProbe.of(m.toArray(), 0));
        boolean tracking = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(a -> a.startsWith("-XX:NativeMemoryTracking=") && !a.endsWith("=off"));
        assertEquals(!tracking, m.jvmNativeBytes() == -1, m::toString);
    }

    @Test
    void aDescriptorHeldThroughTheReadsIsCounted(@TempDir Path dir) throws IOException {
        Path file = Files.createFile(dir.resolve("leaked"));
        long before = MemoryProbe.measure().openFiles();
        try (FileChannel held = FileChannel.open(file)) {
            assertEquals(before + 1, MemoryProbe.measure().openFiles());
        }
        assertEquals(before, MemoryProbe.measure().openFiles());
    }

    @Test
    void aFileOpenedBetweenTwoProbesIsNamed(@TempDir Path dir) throws IOException {
        Path file = Files.createFile(dir.resolve("held"));
        List<String> before = MemoryProbe.descriptors();
        try (FileChannel held = FileChannel.open(file)) {
            List<String> added = MemoryProbe.added(before, MemoryProbe.descriptors());
            assertTrue(added.contains(file.toRealPath().toString()), added::toString);
        }
    }
}
