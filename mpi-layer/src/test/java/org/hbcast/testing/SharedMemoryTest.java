package org.hbcast.testing;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SharedMemoryTest {
    private static final String RANDOM = "0123456789abcdef0123456789abcdef";

    @Test
    void aSegmentOfThisRunningProcessIsNotCountedAsLeaked() {
        long pid = ProcessHandle.current().pid();
        String name = "hbcast-" + RANDOM + "-" + SharedMemory.pidNamespace() + "-" + pid + "-"
                + SharedMemory.startTimeOf(pid);
        assertTrue(SharedMemory.creatorStillRuns(name), name);
    }

    @Test
    void aSegmentWhosePidNowBelongsToAnotherProcessIsCountedAsLeaked() {
        long pid = ProcessHandle.current().pid();
        String name = "hbcast-" + RANDOM + "-" + SharedMemory.pidNamespace() + "-" + pid + "-"
                + (SharedMemory.startTimeOf(pid) + 1);
        assertFalse(SharedMemory.creatorStillRuns(name), name);
    }

    @Test
    void aSegmentOfAnotherPidNamespaceOrAnOldNameIsCountedAsLeaked() {
        long pid = ProcessHandle.current().pid();
        String otherNamespace = "hbcast-" + RANDOM + "-" + (SharedMemory.pidNamespace() + 1) + "-" + pid + "-"
                + SharedMemory.startTimeOf(pid);
        assertFalse(SharedMemory.creatorStillRuns(otherNamespace));
        assertFalse(SharedMemory.creatorStillRuns("hbcast-" + RANDOM));
    }
}
