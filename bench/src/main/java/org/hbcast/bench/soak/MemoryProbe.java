package org.hbcast.bench.soak;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * What a process holds, measured after a full GC: resident set (VmRSS), Java heap in use, direct
 * buffer memory and open file descriptors (a leaked segment mapping or file shows up in one of them).
 *
 * @param rssBytes resident set size
 * @param heapBytes heap in use after GC
 * @param directBytes direct buffer memory in use
 * @param openFiles open file descriptors
 */
record MemoryProbe(long rssBytes, long heapBytes, long directBytes, long openFiles) {
    static final int FIELDS = 4;

    static MemoryProbe measure() {
        System.gc();
        long direct = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                direct = pool.getMemoryUsed();
            }
        }
        return new MemoryProbe(
                rss(), ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), direct, countOpenFiles());
    }

    private static long rss() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(l -> l.startsWith("VmRSS:"))
                    .findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024)
                    .orElse(-1L);
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** Reads of the descriptor count per measurement ({@link #countOpenFiles}). */
    static final int DESCRIPTOR_READS = 3;

    /** Pause between two reads of the descriptor count. */
    private static final long DESCRIPTOR_READ_PAUSE_NS = 10_000_000;

    /**
     * Open descriptors, leaving out jars (the JVM opens a jar on the first class it loads from it, so
     * a rarely taken path late in a soak adds one without anything leaking): the fewest of
     * {@value #DESCRIPTOR_READS} reads 10 ms apart. A leaked descriptor stays open through all of
     * them; one that the MPI library or the JVM holds for a moment does not. A soak in CI once ended
     * with one descriptor more than after warm-up, and a second read at once found none added.
     */
    private static long countOpenFiles() {
        long fewest = Long.MAX_VALUE;
        for (int read = 0; read < DESCRIPTOR_READS; read++) {
            if (read > 0) {
                LockSupport.parkNanos(DESCRIPTOR_READ_PAUSE_NS);
            }
            List<String> open = descriptorsOrNull();
            if (open == null) {
                return -1;
            }
            fewest = Math.min(fewest, open.size());
        }
        return fewest;
    }

    /**
     * What the open descriptors but jars point to ({@code /dev/shm/...}, {@code socket:[...]},
     * {@code anon_inode:[eventfd]}), sorted; empty when they cannot be read. A soak whose descriptor
     * count grew names the new ones with it.
     */
    static List<String> descriptors() {
        List<String> open = descriptorsOrNull();
        return open == null ? List.of() : open;
    }

    private static List<String> descriptorsOrNull() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(MemoryProbe::target)
                    .filter(t -> !t.endsWith(".jar"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return null;
        }
    }

    /** Where {@code fd} points; a descriptor closed since it was listed still counts, as "(closed)". */
    private static String target(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString();
        } catch (IOException | UnsupportedOperationException e) {
            return "(closed)";
        }
    }

    /** The entries of {@code after} that {@code before} does not account for, one for one. */
    static List<String> added(List<String> before, List<String> after) {
        List<String> left = new ArrayList<>(after);
        for (String b : before) {
            left.remove(b);
        }
        return left;
    }

    long[] toArray() {
        return new long[] {rssBytes, heapBytes, directBytes, openFiles};
    }

    static MemoryProbe of(long[] a, int from) {
        return new MemoryProbe(a[from], a[from + 1], a[from + 2], a[from + 3]);
    }
}
