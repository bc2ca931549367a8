package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
        assertEquals(MachineIdentity.hash(name), MachineIdentity.key("node17"));
    }

    @Test
    void hashIsFnv1aAndTellsNamesApart() {
        // FNV-1a's published 64-bit values for "" and "a".
        assertEquals(0xcbf29ce484222325L, MachineIdentity.hash(""));
        assertEquals(0xaf63dc4c8601ec8cL, MachineIdentity.hash("a"));
        assertNotEquals(MachineIdentity.hash("boot:1"), MachineIdentity.hash("boot:2"));
    }
}
