package org.hbcast.transport.shm;

import com.sun.security.auth.module.UnixSystem;
import java.io.FileInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.Set;
import org.agrona.BitUtil;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A file in a tmpfs directory (normally {@code /dev/shm}) mapped read-write and wrapped in an
 * {@link UnsafeBuffer}, shared by processes of one node.
 *
 * <p>Created exclusively, owner-only ({@code rw-------}, given at creation so there is no window in
 * which the file is readable by others) and under an unguessable name, so another user can neither
 * read it nor pre-create it. The name also records the creating process, so that
 * {@link StaleSegmentJanitor} can tell a dead job's segment from a live one's. The creator unlinks it as soon as every peer has mapped it: the mappings
 * stay valid and a crash leaves nothing behind.
 */
public final class SharedSegment implements AutoCloseable {
    /** Where segments go unless a test or the user says otherwise. */
    public static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm");

    /**
     * Every segment name starts with this, followed by 128 random bits in hex and the creator
     * ({@link SegmentCreator}): {@code hbcast-<32 hex>-<pid namespace>-<pid>-<start time>}.
     */
    public static final String NAME_PREFIX = "hbcast-";

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");
    private static final FileAttribute<Set<PosixFilePermission>> OWNER_ONLY_ATTRIBUTE =
            PosixFilePermissions.asFileAttribute(OWNER_ONLY);
    private static final int NAME_RANDOM_BYTES = 16;
    private static final int ZERO_FILL_BLOCK = 64 * 1024;
    /** The kernel's random source, which the JDK's {@code SecureRandom} reads here too. */
    private static final String URANDOM = "/dev/urandom";

    private final Path path;
    private final boolean owner;
    private MappedByteBuffer mapping;
    private final UnsafeBuffer buffer;
    private boolean linked;

    private SharedSegment(final Path path, final boolean owner, final MappedByteBuffer mapping) {
        this.path = path;
        this.owner = owner;
        this.mapping = mapping;
        this.buffer = new UnsafeBuffer(mapping);
        this.linked = true;
    }

    /**
     * Creates a new segment of {@code bytes} zero bytes under a fresh random name in {@code directory}.
     *
     * @throws IOException if the directory is not writable or tmpfs has no room for the segment
     */
    public static SharedSegment create(final Path directory, final int bytes) throws IOException {
        StaleSegmentJanitor.sweepOnce(directory);
        return create(directory, newName(), bytes);
    }

    static SharedSegment create(final Path directory, final String name, final int bytes) throws IOException {
        if (bytes <= 0) {
            throw new IllegalArgumentException("segment size must be positive: " + bytes);
        }
        final Path path = directory.resolve(name);
        final Set<StandardOpenOption> options =
                EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try (FileChannel channel = FileChannel.open(path, options, OWNER_ONLY_ATTRIBUTE)) {
            try {
                // Writing every page now makes a full tmpfs fail here with an IOException; a mapping
                // over unbacked pages would instead kill the JVM with SIGBUS on first touch.
                zeroFill(channel, bytes);
                final MappedByteBuffer mapping = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
                return new SharedSegment(path, true, mapping);
            } catch (final IOException ex) {
                Files.deleteIfExists(path);
                throw new IOException(
                        "cannot create shared-memory segment of " + bytes + " bytes at " + path + ": "
                                + ex.getMessage(),
                        ex);
            } catch (final RuntimeException ex) {
                Files.deleteIfExists(path);
                throw ex;
            }
        } catch (final FileAlreadyExistsException ex) {
            throw new FileAlreadyExistsException(
                    path.toString(), null, "shared-memory segment already exists; segments are created exclusively");
        }
    }

    /**
     * Maps an existing segment of any size, after checking that it is a regular file (not a link)
     * owned by the current user with mode 600.
     */
    public static SharedSegment open(final Path path) throws IOException {
        return open(path, -1);
    }

    /**
     * Maps an existing segment that must be exactly {@code expectedBytes} long, after the checks of
     * {@link #open(Path)}.
     */
    public static SharedSegment open(final Path path, final long expectedBytes) throws IOException {
        final PosixFileAttributes attributes = checkedAttributes(path);
        final long size = attributes.size();
        if (expectedBytes >= 0 && size != expectedBytes) {
            throw new IOException(
                    "shared-memory segment " + path + " has " + size + " bytes, expected " + expectedBytes);
        }
        if (size <= 0 || size > Integer.MAX_VALUE) {
            throw new IOException("shared-memory segment " + path + " has unusable size " + size);
        }
        final Set<OpenOption> options =
                Set.of(StandardOpenOption.READ, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS);
        try (FileChannel channel = FileChannel.open(path, options)) {
            if (channel.size() != size) {
                throw new IOException("shared-memory segment " + path + " changed size while being opened");
            }
            return new SharedSegment(path, false, channel.map(FileChannel.MapMode.READ_WRITE, 0, size));
        }
    }

    private static PosixFileAttributes checkedAttributes(final Path path) throws IOException {
        final PosixFileAttributes attributes;
        try {
            attributes = Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        } catch (final NoSuchFileException ex) {
            throw new NoSuchFileException(
                    path.toString(),
                    null,
                    "shared-memory segment does not exist (already unlinked, or its creator has exited)");
        }
        if (!attributes.isRegularFile()) {
            throw new IOException("shared-memory segment " + path + " is not a regular file"
                    + (attributes.isSymbolicLink() ? " (it is a symbolic link)" : ""));
        }
        final long fileUid = ((Number) Files.getAttribute(path, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
        final long myUid = new UnixSystem().getUid();
        if (fileUid != myUid) {
            throw new IOException("shared-memory segment " + path + " is owned by uid " + fileUid
                    + ", not by this process's uid " + myUid);
        }
        if (!attributes.permissions().equals(OWNER_ONLY)) {
            throw new IOException("shared-memory segment " + path + " has mode "
                    + PosixFilePermissions.toString(attributes.permissions()) + ", expected rw-------");
        }
        return attributes;
    }

    private static void zeroFill(final FileChannel channel, final int bytes) throws IOException {
        final ByteBuffer zeros = ByteBuffer.allocate(Math.min(bytes, ZERO_FILL_BLOCK));
        long position = 0;
        while (position < bytes) {
            zeros.clear().limit((int) Math.min(zeros.capacity(), bytes - position));
            position += channel.write(zeros, position);
        }
    }

    static String newName() {
        final byte[] random = randomBytes(NAME_RANDOM_BYTES);
        return NAME_PREFIX + BitUtil.toHex(random) + SegmentCreator.current().nameSuffix();
    }

    /**
     * {@code n} unguessable bytes: read from {@code /dev/urandom} where it can be, since a first
     * {@code SecureRandom} loads the JDK's security providers (about 35 ms of a cold {@code create}'s
     * CPU here); from {@code SecureRandom} elsewhere.
     */
    static byte[] randomBytes(final int n) {
        final byte[] random = new byte[n];
        try (FileInputStream in = new FileInputStream(URANDOM)) {
            if (in.readNBytes(random, 0, n) == n) {
                return random;
            }
        } catch (final IOException e) {
            // No such device here: the JDK's generator finds another source.
        }
        new SecureRandom().nextBytes(random);
        return random;
    }

    /** The file's name, unique in its directory. */
    public String name() {
        return path.getFileName().toString();
    }

    /** The file's full path, to hand to peers so they can {@link #open(Path)} it. */
    public Path path() {
        return path;
    }

    /** Mapped size in bytes. */
    public int capacity() {
        return buffer.capacity();
    }

    /**
     * Puts every page of the mapping in this process's page table now, at about 1.5 ms a MiB here,
     * rather than at first touch inside a program's calls, where a page first written costs about
     * 4 ms a MiB (one node x 4 at 1 MiB: the fan-out's first 10 calls 4.7-5.1 ms a call where the
     * steady state is 0.1-0.3; loaded, 0.15-0.39). Called for the call board and the fan-out, whose
     * slots every large call on a host cycles through; the ring's inboxes fault in as used.
     */
    public void loadPages() {
        mapping.load();
    }

    /** The mapping. Invalid after {@link #close()}: then every access fails its bounds check. */
    public UnsafeBuffer buffer() {
        return buffer;
    }

    /** True when this process created the segment (and so removes it on close). */
    public boolean isOwner() {
        return owner;
    }

    /** True until {@link #unlink()} or {@link #close()} removed the name (as far as this process knows). */
    public boolean isLinked() {
        return linked;
    }

    /** True once closed. */
    public boolean isClosed() {
        return mapping == null;
    }

    /**
     * Removes the file's name; the mappings of every process stay valid until they are closed.
     * Idempotent; a name that is already gone is not an error.
     */
    public void unlink() throws IOException {
        if (linked) {
            Files.deleteIfExists(path);
            linked = false;
        }
    }

    /**
     * Unmaps the segment and, if this process created it and it is still linked, removes the file.
     * Idempotent.
     */
    @Override
    public void close() throws IOException {
        if (mapping == null) {
            return;
        }
        final MappedByteBuffer unmapping = mapping;
        mapping = null;
        // A stale reference must fail Agrona's bounds check rather than touch unmapped memory and
        // take the JVM down with SIGSEGV.
        buffer.wrap(new byte[0]);
        IoUtil.unmap(unmapping);
        if (owner) {
            unlink();
        }
    }

    @Override
    public String toString() {
        return "SharedSegment{" + path + ", " + (mapping == null ? "closed" : capacity() + " bytes")
                + (owner ? ", owner" : "") + (linked ? "" : ", unlinked") + '}';
    }
}
