package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A second user on the same node, for real: processes run as the system user {@code hbcast-other}
 * (created if absent) try to read, write, remove and pre-create our segments in /dev/shm. Needs
 * root to create the user and switch to it; skipped with the reason otherwise.
 */
class SecondUserTest {
    private static final String USER = "hbcast-other";
    private static final Path SHM = SharedSegment.DEFAULT_DIRECTORY;

    @BeforeAll
    static void secondUser() throws Exception {
        assumeTrue(Files.isDirectory(SHM), "no " + SHM);
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "second-user tests need root (to create user " + USER + " and run processes as it)");
        if (run(List.of("id", "-u", USER)).exit != 0) {
            final Result add =
                    run(List.of("useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", USER));
            assumeTrue(
                    add.exit == 0 || run(List.of("id", "-u", USER)).exit == 0,
                    "cannot create user " + USER + ": " + add.output);
        }
        assumeTrue(asOther("true").exit == 0, "cannot run a process as " + USER + " (runuser)");
    }

    @Test
    void anotherUserCanNeitherReadNorWriteNorRemoveALiveSegment() throws Exception {
        try (SharedSegment segment = SharedSegment.create(SHM, 4096)) {
            segment.buffer().putLong(0, 0x5EC12E7L);
            final String p = segment.path().toString();
            final Result read = asOther("cat '" + p + "' > /dev/null");
            assertNotEquals(0, read.exit, "read by " + USER + ": " + read.output);
            assertTrue(read.output.contains("Permission denied"), read.output);
            assertNotEquals(0, asOther("printf x >> '" + p + "'").exit, "write by " + USER);
            assertNotEquals(0, asOther("printf x > '" + p + "'").exit, "truncate by " + USER);
            assertNotEquals(0, asOther("rm -f '" + p + "' && test ! -e '" + p + "'").exit, "remove by " + USER);
            assertTrue(Files.exists(segment.path()));
            assertEquals(0x5EC12E7L, segment.buffer().getLong(0));
            assertEquals(4096, Files.size(segment.path()));
        }
    }

    @Test
    void aNamePreCreatedByAnotherUserIsNeitherReusedNorOpened() throws Exception {
        final String name = SharedSegment.newName();
        final Path path = SHM.resolve(name);
        try {
            // The other user plants a file (world-writable even) under the name we are about to use.
            final Result plant = asOther("head -c 4096 /dev/zero > '" + path + "' && chmod 666 '" + path + "'");
            assertEquals(0, plant.exit, plant.output);
            assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> SharedSegment.create(SHM, name, 4096));
            final IOException open = assertThrows(IOException.class, () -> SharedSegment.open(path));
            assertTrue(open.getMessage().contains("owned by uid"), open.getMessage());

            // Mode 600 and the right size do not help either: the owner is checked.
            assertEquals(0, asOther("chmod 600 '" + path + "'").exit);
            assertTrue(assertThrows(IOException.class, () -> SharedSegment.open(path, 4096))
                    .getMessage()
                    .contains("owned by uid"));
        } finally {
            Files.deleteIfExists(path);
        }
    }

    @Test
    void aSymbolicLinkPlantedByAnotherUserIsRefused() throws Exception {
        final Path path = SHM.resolve(SharedSegment.newName());
        try {
            assertEquals(0, asOther("ln -s /etc/passwd '" + path + "'").exit);
            assertThrows(
                    java.nio.file.FileAlreadyExistsException.class,
                    () -> SharedSegment.create(SHM, path.getFileName().toString(), 4096));
            assertTrue(assertThrows(IOException.class, () -> SharedSegment.open(path))
                    .getMessage()
                    .contains("not a regular file"));
        } finally {
            Files.deleteIfExists(path);
        }
    }

    @Test
    void theJanitorNeverRemovesAnotherUsersSegment() throws Exception {
        final Path path = SHM.resolve(SharedSegment.newName().replaceFirst("-[0-9]+-[0-9]+$", "-1-1"));
        try {
            assertEquals(
                    0,
                    asOther("head -c 4096 /dev/zero > '" + path + "' && chmod 600 '" + path + "'"
                                    + " && touch -d '2 hours ago' '" + path + "'")
                            .exit);
            assertTrue(StaleSegmentJanitor.sweep(SHM, java.time.Duration.ZERO, false)
                    .kept()
                    .contains(path));
            assertTrue(Files.exists(path));
        } finally {
            Files.deleteIfExists(path);
        }
    }

    private record Result(int exit, String output) {}

    private static Result asOther(final String script) throws Exception {
        return run(List.of("runuser", "-u", USER, "--", "sh", "-c", script));
    }

    private static Result run(final List<String> cmd) throws Exception {
        final Process p;
        try {
            p = new ProcessBuilder(new ArrayList<>(cmd))
                    .redirectErrorStream(true)
                    .start();
        } catch (final IOException ex) {
            return new Result(127, ex.getMessage());
        }
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(124, out + " (timed out)");
        }
        return new Result(p.exitValue(), out);
    }
}
