package org.hbcast.bench.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Directory chores of the runs. */
public final class Directories {
    private Directories() {}

    /** A new temporary directory, removed at exit however the command ends (and by {@link #deleteTree} before). */
    public static Path scratch(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        ExitCleanup.atExit(() -> {
            try {
                deleteTree(dir);
            } catch (IOException e) {
                // Left in the temporary directory; nothing depends on it.
            }
        });
        return dir;
    }

    /** Removes {@code dir} and everything under it, if it exists ({@code rm -rf}). */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
