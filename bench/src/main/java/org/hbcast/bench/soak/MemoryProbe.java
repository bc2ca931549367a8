package org.hbcast.bench.soak;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
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
        return new MemoryProbe(rss(), ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), direct,
                countOpenFiles());
    }

    private static long rss() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            return lines.filter(l -> l.startsWith("VmRSS:")).findFirst()
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) * 1024).orElse(-1L);
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Open descriptors, leaving out jars: the JVM opens a jar on the first class it loads from it, so
     * a rarely taken path late in a soak adds one without anything leaking.
     */
    private static long countOpenFiles() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.filter(fd -> !isJar(fd)).count();
        } catch (IOException e) {
            return -1;
        }
    }

    private static boolean isJar(Path fd) {
        try {
            return Files.readSymbolicLink(fd).toString().endsWith(".jar");
        } catch (IOException | UnsupportedOperationException e) {
            return false; // closed since it was listed, or not a link: counted as a descriptor
        }
    }

    long[] toArray() {
        return new long[] {rssBytes, heapBytes, directBytes, openFiles};
    }

    static MemoryProbe of(long[] a, int from) {
        return new MemoryProbe(a[from], a[from + 1], a[from + 2], a[from + 3]);
    }
}
