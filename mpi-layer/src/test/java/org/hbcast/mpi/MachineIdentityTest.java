package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class MachineIdentityTest {

    @Test
    void namesTheKernelsBootWhereLinuxHasOne() throws Exception {
        Path bootId = Path.of("/proc/sys/kernel/random/boot_id");
        String name = MachineIdentity.name("node17");
        assertEquals(
                Files.isReadable(bootId) ? "boot:" + Files.readString(bootId).trim() : "host:node17", name);
        assertTrue(name.length() > "boot:".length(), name);
        assertEquals(StableHash.fnv1a64(name), MachineIdentity.key("node17"));
    }
}
