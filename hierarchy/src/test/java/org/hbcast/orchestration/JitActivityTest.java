package org.hbcast.orchestration;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class JitActivityTest {
    /** On Linux the JIT's activity comes from its compiler threads, without the JDK's management. */
    @Test
    void onLinuxTheCompilerThreadsAreRead() {
        assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "a Linux /proc");
        assumeTrue(!ManagementFactory.getRuntimeMXBean().getInputArguments().contains("-Xint"), "a JVM with a JIT");
        long nanos = JitActivity.compilerNanos();
        assertTrue(nanos >= 0, "no compiler thread found in /proc/self/task");
        // A JVM that has run JUnit this far has compiled methods: its compiler threads have used the CPU.
        assertTrue(nanos > 0, "the compiler threads' CPU read as 0");
    }
}
