package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SharedSegmentTest {
    private ShmTestDirectory dir;

    @BeforeEach
    void createDirectory() throws IOException {
        dir = ShmTestDirectory.create();
    }

    @AfterEach
    void removeDirectory() throws IOException {
        dir.close();
    }

    @Test
    void createsOwnerOnlyFileUnderRandomName() throws IOException {
        try (SharedSegment segment = SharedSegment.create(dir.path(), 10_000)) {
            assertTrue(segment.name().matches("hbcast-[0-9a-f]{32}-[0-9]+-[0-9]+-[0-9]+"), segment.name());
            assertEquals(SegmentCreator.current(), SegmentCreator.ofName(segment.name()));
            assertEquals(dir.path().resolve(segment.name()), segment.path());
            assertEquals(
                    "rw-------",
                    PosixFilePermissions.toString(
                            Files.getPosixFilePermissions(segment.path(), LinkOption.NOFOLLOW_LINKS)));
            assertEquals(
                    (long) new UnixSystem().getUid(),
                    ((Number) Files.getAttribute(segment.path(), "unix:uid")).longValue());
            assertEquals(10_000, Files.size(segment.path()));
            assertEquals(10_000, segment.capacity());
            assertTrue(segment.isOwner());
            for (int i = 0; i < segment.capacity(); i++) {
                assertEquals(0, segment.buffer().getByte(i), "byte " + i);
            }
        }
    }

    @Test
    void namesDoNotRepeat() throws IOException {
        final Set<String> names = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            assertTrue(names.add(SharedSegment.newName()));
        }
    }

    @Test
    void creationIsExclusive() throws IOException {
        final String name = SharedSegment.newName();
        try (SharedSegment first = SharedSegment.create(dir.path(), name, 4096)) {
            first.buffer().putLong(0, 42);
            final FileAlreadyExistsException ex =
                    assertThrows(FileAlreadyExistsException.class, () -> SharedSegment.create(dir.path(), name, 4096));
            assertTrue(ex.getMessage().contains("exclusively"), ex.getMessage());
            assertTrue(Files.exists(first.path()), "the failed create must not remove the existing file");
            assertEquals(42, first.buffer().getLong(0));
        }
    }

    @Test
    void refusesNameSomebodyCreatedFirst() throws IOException {
        final String name = SharedSegment.newName();
        final Path planted = Files.writeString(dir.path().resolve(name), "planted");
        assertThrows(FileAlreadyExistsException.class, () -> SharedSegment.create(dir.path(), name, 4096));
        assertEquals("planted", Files.readString(planted));
    }

    @Test
    void openedMappingSharesMemoryWithCreator() throws IOException {
        try (SharedSegment owner = SharedSegment.create(dir.path(), 8192);
                SharedSegment peer = SharedSegment.open(owner.path(), 8192)) {
            assertFalse(peer.isOwner());
            owner.buffer().putLongOrdered(4096, 0x1234_5678_9ABCL);
            assertEquals(0x1234_5678_9ABCL, peer.buffer().getLongVolatile(4096));
            peer.buffer().putIntOrdered(8188, -7);
            assertEquals(-7, owner.buffer().getIntVolatile(8188));
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void unlinkRemovesFileButKeepsMappingsShared() throws IOException {
        try (SharedSegment owner = SharedSegment.create(dir.path(), 4096);
                SharedSegment peer = SharedSegment.open(owner.path())) {
            owner.unlink();
            assertFalse(owner.isLinked());
            assertFalse(Files.exists(owner.path(), LinkOption.NOFOLLOW_LINKS));
            assertEquals(List.of(), dir.entries());
            owner.buffer().putLong(64, 99);
            assertEquals(99, peer.buffer().getLong(64));
            owner.unlink();
            final NoSuchFileException ex =
                    assertThrows(NoSuchFileException.class, () -> SharedSegment.open(owner.path()));
            assertTrue(ex.getMessage().contains("does not exist"), ex.getMessage());
        }
    }

    @Test
    void closeLeavesNothingAndStaleAccessFailsCleanly() throws IOException {
        final SharedSegment segment = SharedSegment.create(dir.path(), 4096);
        final UnsafeBuffer stale = segment.buffer();
        segment.close();
        assertTrue(segment.isClosed());
        assertEquals(List.of(), dir.entries());
        assertThrows(IndexOutOfBoundsException.class, () -> stale.getLong(0));
        segment.close();
    }

    @Test
    void peerCloseDoesNotRemoveOwnersFile() throws IOException {
        try (SharedSegment owner = SharedSegment.create(dir.path(), 4096)) {
            SharedSegment.open(owner.path()).close();
            assertTrue(Files.exists(owner.path()));
        }
        assertEquals(List.of(), dir.entries());
    }

    @Test
    void openRejectsWrongSize() throws IOException {
        try (SharedSegment owner = SharedSegment.create(dir.path(), 4096)) {
            final IOException ex = assertThrows(IOException.class, () -> SharedSegment.open(owner.path(), 8192));
            assertTrue(ex.getMessage().contains("4096 bytes, expected 8192"), ex.getMessage());
        }
    }

    @Test
    void openRejectsLooserPermissions() throws IOException {
        try (SharedSegment owner = SharedSegment.create(dir.path(), 4096)) {
            Files.setPosixFilePermissions(owner.path(), PosixFilePermissions.fromString("rw-r--r--"));
            final IOException ex = assertThrows(IOException.class, () -> SharedSegment.open(owner.path()));
            assertTrue(ex.getMessage().contains("mode rw-r--r--, expected rw-------"), ex.getMessage());
        }
    }

    @Test
    void openRejectsSymbolicLink() throws IOException {
        try (SharedSegment owner = SharedSegment.create(dir.path(), 4096)) {
            final Path link = Files.createSymbolicLink(dir.path().resolve("hbcast-link"), owner.path());
            final IOException ex = assertThrows(IOException.class, () -> SharedSegment.open(link));
            assertTrue(ex.getMessage().contains("symbolic link"), ex.getMessage());
        }
    }

    @Test
    void openRejectsDirectory() throws IOException {
        final Path sub = Files.createDirectory(dir.path().resolve("hbcast-dir"));
        final IOException ex = assertThrows(IOException.class, () -> SharedSegment.open(sub));
        assertTrue(ex.getMessage().contains("not a regular file"), ex.getMessage());
    }

    @Test
    void openRejectsFileOfAnotherUser() throws IOException {
        assumeTrue(new UnixSystem().getUid() == 0, "only root can give a file away");
        try (SharedSegment owner = SharedSegment.create(dir.path(), 4096)) {
            Files.setAttribute(owner.path(), "unix:uid", 65534);
            final IOException ex = assertThrows(IOException.class, () -> SharedSegment.open(owner.path()));
            assertTrue(ex.getMessage().contains("owned by uid 65534"), ex.getMessage());
        }
    }

    @Test
    void rejectsNonPositiveSize() {
        assertThrows(IllegalArgumentException.class, () -> SharedSegment.create(dir.path(), 0));
    }
}
