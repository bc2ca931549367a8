package org.hbcast.bench.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.stream.Stream;
import javax.management.JMException;
import javax.management.ObjectName;

/**
 * What a process holds, measured after a full GC: resident set (VmRSS) and its anonymous and
 * shared-memory parts, Java heap in use, direct buffer memory, the JVM's own native memory and open
 * file descriptors (a leaked segment mapping or file shows up in one of them).
 *
 * <p>The parts tell where a growing resident set comes from: shared memory (RssShmem: hbcast's
 * segments and Open MPI's vader segments, whose pages count once this process has touched them), the
 * JVM's native memory (Native Memory Tracking's committed total, when the JVM runs with
 * {@code -XX:NativeMemoryTracking=summary}; it includes the heap and direct buffers), or neither:
 * anonymous memory that the JVM does not account for is malloc'ed by native code (Open MPI, the
 * bindings) or glibc keeping freed memory.
 *
 * @param rssBytes resident set size
 * @param heapBytes heap in use after GC
 * @param directBytes direct buffer memory in use
 * @param openFiles open file descriptors
 * @param anonBytes resident anonymous memory (RssAnon)
 * @param shmemBytes resident shared memory (RssShmem)
 * @param jvmNativeBytes committed memory the JVM accounts for (NMT total), or -1 without NMT
 */
record MemoryProbe(
        long rssBytes,
        long heapBytes,
        long directBytes,
        long openFiles,
        long anonBytes,
        long shmemBytes,
        long jvmNativeBytes) {
    static final int FIELDS = 7;

    /** Pause between two reads of direct memory while the cleaner frees what the GC found unreachable. */
    private static final long SETTLE_PAUSE_NS = 20_000_000;

    /** Most reads of direct memory before it counts as settled anyway (one second). */
    private static final int SETTLE_READS = 50;

    static MemoryProbe measure() {
        System.gc();
        // The GC only finds a dead direct buffer; the JDK's cleaner thread frees its memory a moment
        // later. Measured at once, a soak plan's start still held the previous plan's 64 MiB staging
        // buffer (direct 257 MiB at its start, 193 at its end, in every plan on the 2-host bed), so
        // the resident set seemed to shrink by 64 MiB during each plan.
        long direct = directUsed();
        for (int read = 0; read < SETTLE_READS; read++) {
            LockSupport.parkNanos(SETTLE_PAUSE_NS);
            long now = directUsed();
            if (now == direct) {
                break;
            }
            direct = now;
        }
        Map<String, Long> status = status();
        return new MemoryProbe(
                status.getOrDefault("VmRSS", -1L),
                ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(),
                direct,
                countOpenFiles(),
                status.getOrDefault("RssAnon", -1L),
                status.getOrDefault("RssShmem", -1L),
                jvmNative());
    }

    private static long directUsed() {
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            if (pool.getName().equals("direct")) {
                return pool.getMemoryUsed();
            }
        }
        return 0;
    }

    /** The kB fields of /proc/self/status, in bytes; empty when it cannot be read. */
    private static Map<String, Long> status() {
        Map<String, Long> fields = new HashMap<>();
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/status"))) {
            lines.filter(l -> l.endsWith(" kB")).forEach(l -> {
                int colon = l.indexOf(':');
                try {
                    fields.put(
                            l.substring(0, colon),
                            1024
                                    * Long.parseLong(l.substring(colon + 1, l.length() - 3)
                                            .strip()));
                } catch (NumberFormatException e) {
                    // a field of another shape: not one we read
                }
            });
        } catch (IOException | UncheckedIOException e) {
            return Map.of();
        }
        return fields;
    }

    private static final java.util.regex.Pattern NMT_TOTAL =
            java.util.regex.Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB");

    /**
     * The committed total of Native Memory Tracking, through the same diagnostic command as
     * {@code jcmd PID VM.native_memory summary}; -1 when the JVM runs without tracking.
     */
    static long jvmNative() {
        try {
            Object out = ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "vmNativeMemory",
                            new Object[] {new String[] {"summary"}},
                            new String[] {String[].class.getName()});
            Matcher m = NMT_TOTAL.matcher(String.valueOf(out));
            return m.find() ? 1024 * Long.parseLong(m.group(2)) : -1;
        } catch (JMException | RuntimeException e) {
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
        return new long[] {rssBytes, heapBytes, directBytes, openFiles, anonBytes, shmemBytes, jvmNativeBytes};
    }

    static MemoryProbe of(long[] a, int from) {
        return new MemoryProbe(a[from], a[from + 1], a[from + 2], a[from + 3], a[from + 4], a[from + 5], a[from + 6]);
    }
}
