package org.hbcast.transport.shm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who created a segment, as written into its name: the creator's pid namespace, pid and start
 * time (clock ticks after boot, field 22 of {@code /proc/PID/stat}). A pid alone could have been
 * reused by a later process; with the start time it names one process for the life of the machine.
 *
 * <p>Segment names are {@code hbcast-<32 hex random>-<pid namespace>-<pid>-<start time>}.
 *
 * @param pidNamespace inode of the creator's pid namespace ({@code /proc/self/ns/pid})
 * @param pid creator's pid in that namespace
 * @param startTime creator's start time in clock ticks after boot
 */
public record SegmentCreator(long pidNamespace, long pid, long startTime) {
    /** A segment name: prefix, 128 random bits, creator. */
    static final Pattern NAME = Pattern.compile("hbcast-[0-9a-f]{32}-([0-9]{1,19})-([0-9]{1,19})-([0-9]{1,19})");

    private static final Pattern NAMESPACE_LINK = Pattern.compile("pid:\\[([0-9]+)\\]");
    private static SegmentCreator self;

    /** This process. */
    public static synchronized SegmentCreator current() {
        if (self == null) {
            final long pid = ProcessHandle.current().pid();
            final long start = startTimeOf(pid);
            self = new SegmentCreator(pidNamespace(Path.of("/proc/self/ns/pid")), pid, Math.max(start, 0));
        }
        return self;
    }

    /** The creator recorded in a segment name, or null when the name is not a segment name. */
    public static SegmentCreator ofName(final String name) {
        final Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return null;
        }
        try {
            return new SegmentCreator(
                    Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)));
        } catch (final NumberFormatException ex) {
            return null;
        }
    }

    /** The suffix this creator adds to a segment name. */
    String nameSuffix() {
        return "-" + pidNamespace + "-" + pid + "-" + startTime;
    }

    /**
     * Whether this creator is certainly gone: its process no longer exists, or its pid now belongs
     * to a process that started at another time. Only decidable for creators in our pid namespace;
     * anything unclear counts as alive.
     */
    public boolean isDead() {
        final SegmentCreator me = current();
        if (pidNamespace != me.pidNamespace || me.pidNamespace == 0 || startTime == 0) {
            return false;
        }
        final long now = startTimeOf(pid);
        return now == -2 || now >= 0 && now != startTime;
    }

    /**
     * Start time of a process in clock ticks after boot; -2 when no such process exists, -1 when
     * it cannot be read.
     */
    static long startTimeOf(final long pid) {
        final Path stat = Path.of("/proc", Long.toString(pid), "stat");
        try {
            final String text = Files.readString(stat);
            // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
            final String[] fields =
                    text.substring(text.lastIndexOf(')') + 2).trim().split(" ");
            return Long.parseLong(fields[19]);
        } catch (final java.nio.file.NoSuchFileException ex) {
            return Files.exists(Path.of("/proc/self/stat")) ? -2 : -1;
        } catch (final IOException | RuntimeException ex) {
            return -1;
        }
    }

    private static long pidNamespace(final Path link) {
        try {
            final Matcher m =
                    NAMESPACE_LINK.matcher(Files.readSymbolicLink(link).toString());
            return m.matches() ? Long.parseLong(m.group(1)) : 0;
        } catch (final IOException | RuntimeException ex) {
            return 0;
        }
    }
}
