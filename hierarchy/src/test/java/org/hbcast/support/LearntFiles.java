package org.hbcast.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.hbcast.tuning.TuningFiles;

/** Finds the learnt plans ({@code learnt-<fingerprint>.json}) a run kept in this process's cache directory. */
public final class LearntFiles {
    private LearntFiles() {}

    /** The first learnt file in the cache, if any. */
    public static Optional<Path> find() throws IOException {
        try (var files = Files.list(TuningFiles.cacheDirectory(System.getenv()))) {
            return files.filter(p -> p.getFileName().toString().startsWith(TuningFiles.LEARNT_PREFIX))
                    .findFirst();
        }
    }

    /** The learnt file rank 0 kept; fails the check where there is none. */
    public static Path kept() throws IOException {
        return find().orElseThrow(() -> new AssertionError("rank 0 kept no learnt plans in the cache"));
    }
}
