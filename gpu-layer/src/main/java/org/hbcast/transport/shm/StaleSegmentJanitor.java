package org.hbcast.transport.shm;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Removes the shared-memory segments of dead jobs: files in a tmpfs directory named like hbcast's
 * segments ({@link SegmentCreator#NAME}), regular files owned by this user, older than a minimum
 * age, whose creator process is certainly gone ({@link SegmentCreator#isDead()}). A live job's
 * segment, anything of another user, of another pid namespace, or of unknown origin is left alone.
 *
 * <p>Segments are normally unlinked within a second of creation, so only a job killed during setup
 * leaves one behind. The janitor runs once per directory and process at the first
 * {@link SharedSegment#create}, and on demand as a command:
 * {@code java -cp ... org.hbcast.transport.shm.StaleSegmentJanitor [--dir /dev/shm] [--min-age SECONDS] [--dry-run]}.
 */
public final class StaleSegmentJanitor {
    /** Age below which a segment is never touched: a live job may be setting up under a pid we cannot judge. */
    public static final Duration DEFAULT_MIN_AGE = Duration.ofSeconds(30);

    private static final Set<Path> SWEPT = ConcurrentHashMap.newKeySet();

    /** What one sweep did. */
    public record Sweep(List<Path> removed, List<Path> kept) {}

    private StaleSegmentJanitor() {}

    /** {@link #sweep} once per directory in this process; never throws. */
    static void sweepOnce(final Path directory) {
        if (SWEPT.add(directory.toAbsolutePath().normalize())) {
            try {
                sweep(directory, DEFAULT_MIN_AGE, false);
            } catch (final IOException | RuntimeException ignored) {
                // Cleaning up after others must never stop this job.
            }
        }
    }

    /**
     * Removes (or with {@code dryRun} only lists) the stale segments in {@code directory}.
     *
     * @return the segments removed and the hbcast-named ones kept
     */
    public static Sweep sweep(final Path directory, final Duration minAge, final boolean dryRun) throws IOException {
        final List<Path> removed = new ArrayList<>();
        final List<Path> kept = new ArrayList<>();
        final long myUid = new UnixSystem().getUid();
        final Instant youngest = Instant.now().minus(minAge);
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, SharedSegment.NAME_PREFIX + "*")) {
            for (final Path file : files) {
                final SegmentCreator creator =
                        SegmentCreator.ofName(file.getFileName().toString());
                if (creator == null) {
                    continue;
                }
                if (isStale(file, creator, myUid, youngest)) {
                    try {
                        if (!dryRun) {
                            Files.delete(file);
                        }
                        removed.add(file);
                    } catch (final NoSuchFileException ex) {
                        // Removed meanwhile by its creator or another janitor.
                    }
                } else {
                    kept.add(file);
                }
            }
        }
        return new Sweep(removed, kept);
    }

    private static boolean isStale(
            final Path file, final SegmentCreator creator, final long myUid, final Instant youngest) {
        try {
            final PosixFileAttributes a =
                    Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            final long uid = ((Number) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue();
            return a.isRegularFile()
                    && uid == myUid
                    && a.lastModifiedTime().toInstant().isBefore(youngest)
                    && creator.isDead();
        } catch (final IOException | RuntimeException ex) {
            return false;
        }
    }

    /** The command: sweeps a directory and lists what it removed and kept. */
    public static void main(final String[] args) throws IOException {
        Path dir = SharedSegment.DEFAULT_DIRECTORY;
        Duration minAge = DEFAULT_MIN_AGE;
        boolean dryRun = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--dir" -> dir = Path.of(value(args, ++i, "--dir"));
                case "--min-age" -> minAge = Duration.ofSeconds(Long.parseLong(value(args, ++i, "--min-age")));
                case "--dry-run" -> dryRun = true;
                default -> {
                    System.err.println("usage: StaleSegmentJanitor [--dir /dev/shm] [--min-age SECONDS] [--dry-run]");
                    System.exit(2);
                }
            }
        }
        final Sweep sweep = sweep(dir, minAge, dryRun);
        for (final Path p : sweep.removed()) {
            System.out.println((dryRun ? "stale (not removed, dry run): " : "removed stale segment: ") + p);
        }
        for (final Path p : sweep.kept()) {
            System.out.println("kept (live, young, foreign or undecidable): " + p);
        }
        System.out.println(sweep.removed().size() + " stale, " + sweep.kept().size() + " kept in " + dir);
    }

    private static String value(final String[] args, final int i, final String option) {
        if (i >= args.length) {
            System.err.println(option + " needs a value");
            System.exit(2);
        }
        return args[i];
    }
}
