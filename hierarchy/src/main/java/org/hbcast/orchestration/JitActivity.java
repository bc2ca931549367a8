package org.hbcast.orchestration;

import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether this JVM's JIT is still compiling: the warm-up runs until it is not. On Linux it reads the
 * CPU time of the JIT's compiler threads from {@code /proc/self/task}; elsewhere the JIT's
 * accumulated compile time from the JDK's {@link CompilationMXBean}. Not the bean first: its first
 * use starts the JDK's platform management (the {@code ManagementFactory}), 25-40 ms of a cold JVM's
 * CPU on an idle host, paid inside every JVM's first {@code create} (docs/tuning.md). A JVM that
 * reports neither reads as always quiet, so the warm-up then runs one round.
 */
final class JitActivity {
    private static final Path TASKS = Path.of("/proc/self/task");
    /**
     * What the names of HotSpot's compiler threads hold ("C1 CompilerThread0", "C2 CompilerThread0",
     * "JVMCI CompilerThread0", cut by Linux to 15 characters).
     */
    private static final String COMPILER = " CompilerT";

    private JitActivity() {}

    /** The JIT's compile time so far, in milliseconds (0 where not reported). */
    static long compileMillis() {
        long nanos = compilerNanos();
        return nanos >= 0 ? nanos / 1_000_000 : Bean.millis();
    }

    /**
     * CPU nanoseconds of this JVM's live compiler threads ({@code schedstat}'s first field), or -1
     * where {@code /proc} does not tell. A thread the JIT retires takes its time with it; the
     * warm-up compares rounds, and a round where that happens reads as quiet at worst.
     */
    static long compilerNanos() {
        String[] tids = TASKS.toFile().list();
        if (tids == null) {
            return -1;
        }
        long nanos = 0;
        boolean any = false;
        for (String tid : tids) {
            Path task = TASKS.resolve(tid);
            try {
                String name = new String(Files.readAllBytes(task.resolve("comm")), StandardCharsets.US_ASCII);
                if (!name.contains(COMPILER)) {
                    continue;
                }
                String stat = new String(Files.readAllBytes(task.resolve("schedstat")), StandardCharsets.US_ASCII);
                int end = stat.indexOf(' ');
                nanos += Long.parseLong(end < 0 ? stat.trim() : stat.substring(0, end));
                any = true;
            } catch (IOException | NumberFormatException e) {
                // A thread that ended meanwhile, or a kernel without schedstat: it counts for nothing.
            }
        }
        return any ? nanos : -1;
    }

    /** The JDK's bean, made only where {@code /proc} does not tell. */
    private static final class Bean {
        private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
        private static final boolean TIMED = JIT != null && JIT.isCompilationTimeMonitoringSupported();

        static long millis() {
            return TIMED ? JIT.getTotalCompilationTime() : 0;
        }
    }
}
