package org.hbcast.mpi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Names the machine (the kernel) a process runs on, so that ranks can count how many of them share
 * its cores. Linux's boot id is one per boot of a kernel and the same in every namespace and
 * container on it, where host names and shared-memory domains are not; elsewhere MPI's processor
 * name.
 */
final class MachineIdentity {
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");

    private MachineIdentity() {}

    /** A 64-bit key of this machine, equal in every process on it; {@code processorName} where there is no boot id. */
    static long key(String processorName) {
        return StableHash.fnv1a64(name(processorName));
    }

    static String name(String processorName) {
        try {
            String id = Files.readString(BOOT_ID, StandardCharsets.US_ASCII).trim();
            if (!id.isEmpty()) {
                return "boot:" + id;
            }
        } catch (IOException | SecurityException e) {
            // Not Linux, or /proc hidden: fall back to the processor name.
        }
        return "host:" + processorName;
    }
}
