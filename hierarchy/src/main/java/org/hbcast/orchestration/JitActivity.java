package org.hbcast.orchestration;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * Whether this JVM's JIT is still compiling: the warm-up runs until it is not. Reads the JIT's
 * accumulated compile time; a JVM that does not report it reads as always quiet, so the warm-up
 * then runs one round.
 */
final class JitActivity {
    private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
    private static final boolean TIMED = JIT != null && JIT.isCompilationTimeMonitoringSupported();

    private JitActivity() {}

    /** The JIT's compile time so far, in milliseconds (0 where not reported). */
    static long compileMillis() {
        return TIMED ? JIT.getTotalCompilationTime() : 0;
    }
}
