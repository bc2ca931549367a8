package org.hbcast.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Lists hbcast's shared-memory segments in /dev/shm, so tests can prove nothing was left behind. */
public final class SharedMemory {
    private static final Path DEV_SHM = Paths.get("/dev/shm");
    /** The names hbcast gives its segments: a prefix, 128 random bits and (lately) the creator process. */
    private static final Pattern SEGMENT_NAME = Pattern.compile("hbcast-[0-9a-f]{32}(-[0-9]+-[0-9]+-[0-9]+)?");

    private SharedMemory() {}

    public static List<String> hbcastSegments() {
        if (!Files.isDirectory(DEV_SHM)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(DEV_SHM)) {
            return files.map(p -> p.getFileName().toString())
                    .filter(n -> SEGMENT_NAME.matcher(n).matches())
                    .sorted()
                    .toList();
        } catch (IOException e) {
            return List.of();
        }
    }
}
