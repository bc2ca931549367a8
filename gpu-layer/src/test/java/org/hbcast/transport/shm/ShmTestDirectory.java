package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** A private directory under /dev/shm (tmpfs, like production) that a test removes when done. */
final class ShmTestDirectory implements AutoCloseable {
    private final Path path;

    private ShmTestDirectory(final Path path) {
        this.path = path;
    }

    static ShmTestDirectory create() throws IOException {
        final Path base = Files.isDirectory(SharedSegment.DEFAULT_DIRECTORY)
                ? SharedSegment.DEFAULT_DIRECTORY
                : Path.of(System.getProperty("java.io.tmpdir"));
        return new ShmTestDirectory(Files.createTempDirectory(base, "hbcast-test-"));
    }

    Path path() {
        return path;
    }

    List<String> entries() throws IOException {
        try (Stream<Path> files = Files.list(path)) {
            return files.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    /** Deletes whatever a failed test left, then the directory. */
    @Override
    public void close() throws IOException {
        try (Stream<Path> files = Files.list(path)) {
            for (final Path file : files.collect(Collectors.toList())) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(path);
    }
}
