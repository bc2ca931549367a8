package org.hbcast.device;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import jcuda.LibUtils;

/**
 * Puts JCuda's native libraries where JCuda looks for them, whole, before JCuda loads them.
 *
 * <p>On first use JCuda writes each native library from its jar to a fixed name under
 * {@code java.io.tmpdir} unless a file of that name exists, then loads that file; it takes no lock.
 * Ranks starting together on a fresh node race: one writes while another finds the name, loads a
 * half-written library and reports "no device". Here the first process writes each library to a
 * temporary file, syncs it and renames it into place atomically, under a file lock; the others wait
 * for the lock and find the whole file, which JCuda then only loads. A file of the wrong size (left
 * by a crash, or by an unlocked writer) is replaced the same way.
 */
public final class JCudaNatives {
    /** The libraries hbcast loads through JCuda: the runtime API and the driver API. */
    private static final String[] LIBRARIES = {"JCudaRuntime", "JCudaDriver"};

    private static boolean prepared;

    private JCudaNatives() {}

    /**
     * Makes sure every library is whole in {@code java.io.tmpdir}; idempotent, safe across processes.
     *
     * @return the libraries' paths
     * @throws IOException naming the library and the directory when one cannot be put in place
     */
    public static synchronized List<Path> prepare() throws IOException {
        final Path dir = Path.of(System.getProperty("java.io.tmpdir"));
        final List<Path> paths = new ArrayList<>();
        for (final String name : LIBRARIES) {
            paths.add(place(dir, fileName(name)));
        }
        prepared = true;
        return paths;
    }

    /** Prepares the libraries and prints where they are: for scripts and for a node's first check. */
    public static void main(final String[] args) throws IOException {
        for (final Path p : prepare()) {
            System.out.println(p + " (" + Files.size(p) + " bytes)");
        }
    }

    /** Whether {@link #prepare} has run in this process. */
    public static synchronized boolean prepared() {
        return prepared;
    }

    /** The file name JCuda gives library {@code name} of its release on this platform. */
    static String fileName(final String name) {
        return LibUtils.createLibraryFileName(
                LibUtils.createPlatformLibraryName(name + "-" + IpcHandles.jcudaVersion()));
    }

    private static Path place(final Path dir, final String file) throws IOException {
        final String resource = "/lib/" + file;
        final long size = resourceSize(resource);
        final Path target = dir.resolve(file);
        if (whole(target, size)) {
            return target;
        }
        Files.createDirectories(dir);
        final Path lockFile = dir.resolve(file + ".lock");
        try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = ch.lock()) {
            if (whole(target, size)) {
                return target; // another process put it there while this one waited
            }
            final Path part = Files.createTempFile(dir, file, ".part");
            try {
                try (InputStream in = open(resource);
                        OutputStream out = Files.newOutputStream(part)) {
                    in.transferTo(out);
                }
                try (FileChannel sync = FileChannel.open(part, StandardOpenOption.WRITE)) {
                    sync.force(true);
                }
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (final IOException ex) {
                Files.deleteIfExists(part);
                throw new IOException(
                        "cannot put JCuda's " + file + " in " + dir + " (" + ex + "): a file of that name with "
                                + (Files.exists(target) ? Files.size(target) : 0) + " of its " + size
                                + " bytes would be loaded half-written; remove it or give the ranks another"
                                + " -Djava.io.tmpdir",
                        ex);
            }
        }
        return target;
    }

    private static boolean whole(final Path target, final long size) throws IOException {
        return Files.isRegularFile(target) && Files.size(target) == size;
    }

    private static long resourceSize(final String resource) throws IOException {
        try (InputStream in = open(resource)) {
            return in.transferTo(OutputStream.nullOutputStream());
        }
    }

    private static InputStream open(final String resource) throws IOException {
        final InputStream in = LibUtils.class.getResourceAsStream(resource);
        if (in == null) {
            throw new IOException("JCuda's natives jar for this platform is not on the class path (no " + resource
                    + ", JCuda " + IpcHandles.jcudaVersion() + ")");
        }
        return in;
    }
}
