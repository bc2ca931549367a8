package org.hbcast.bench.launch;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/** Where the repository's scripts are: {@code -Dhbcast.root} (the scripts set it), else above the working directory. */
public final class Repository {
    /** The system property the scripts pass the repository root in. */
    public static final String ROOT_PROPERTY = "hbcast.root";

    private Repository() {}

    /** The repository root: the directory holding {@code scripts/hbrun}. */
    public static Path root() {
        String given = System.getProperty(ROOT_PROPERTY);
        if (given != null && !given.isBlank()) {
            return Paths.get(given).toAbsolutePath().normalize();
        }
        Path dir = Paths.get(System.getProperty("user.dir")).toAbsolutePath();
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.isExecutable(p.resolve("scripts/hbrun"))) {
                return p;
            }
        }
        throw new IllegalStateException("no scripts/hbrun above " + dir + " (set -D" + ROOT_PROPERTY + ")");
    }

    /** A script of the repository, e.g. {@code script(root, "hbrun")}. */
    public static Path script(Path root, String name) {
        return root.resolve("scripts").resolve(name);
    }
}
