package org.hbcast.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Lists hbcast's shared-memory segments in /dev/shm, so tests can prove nothing was left behind. */
public final class SharedMemory {
    private static final Path DEV_SHM = Paths.get("/dev/shm");
    /**
     * The names hbcast gives its segments: a prefix, 128 random bits and (lately) the creator
     * process as pid namespace, pid and start time.
     */
    private static final Pattern SEGMENT_NAME =
            Pattern.compile("hbcast-[0-9a-f]{32}(?:-([0-9]{1,19})-([0-9]{1,19})-([0-9]{1,19}))?");

    private static final Pattern NAMESPACE_LINK = Pattern.compile("pid:\\[([0-9]+)\\]");

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

    /** Longest wait for a creator that still runs to exit: a rank of the launch may still be exiting. */
    private static final long SETTLE_MS = 2_000;

    /**
     * The segments made since {@code before} that no running process owns: a launch's leaks. A
     * segment whose creator still runs is another job's, made beside the launch, unless that
     * creator exits within {@link #SETTLE_MS} (a rank of the launch still tearing down): the listing
     * is taken again until no new segment's creator runs or the time is up.
     */
    static List<String> newSegments(List<String> before) throws InterruptedException {
        long deadline = System.nanoTime() + SETTLE_MS * 1_000_000;
        while (true) {
            List<String> made = new ArrayList<>(hbcastSegments());
            made.removeAll(before);
            boolean running = made.stream().anyMatch(SharedMemory::creatorStillRuns);
            if (!running || System.nanoTime() > deadline) {
                made.removeIf(SharedMemory::creatorStillRuns);
                return made;
            }
            Thread.sleep(100);
        }
    }

    /**
     * Whether a segment's creator is a process still running in this pid namespace (the same pid
     * with the same start time). A launch that has ended has no running ranks, so such a segment
     * belongs to another job running beside it (another test, a benchmark) and is no leak of the
     * launch. Anything undecidable (an older name, another pid namespace) counts as not running.
     */
    static boolean creatorStillRuns(String segment) {
        Matcher m = SEGMENT_NAME.matcher(segment);
        if (!m.matches() || m.group(1) == null) {
            return false;
        }
        long namespace = pidNamespace();
        if (namespace == 0 || namespace != Long.parseLong(m.group(1))) {
            return false;
        }
        long start = startTimeOf(Long.parseLong(m.group(2)));
        return start >= 0 && start == Long.parseLong(m.group(3));
    }

    static long pidNamespace() {
        try {
            Matcher m = NAMESPACE_LINK.matcher(
                    Files.readSymbolicLink(Path.of("/proc/self/ns/pid")).toString());
            return m.matches() ? Long.parseLong(m.group(1)) : 0;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Start time (field 22 of /proc/PID/stat), or -1 when there is no such process or it cannot be read. */
    static long startTimeOf(long pid) {
        try {
            String text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name may hold spaces and parentheses: count fields after the last ')'.
            String[] fields = text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
            return Long.parseLong(fields[19]);
        } catch (NoSuchFileException e) {
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
