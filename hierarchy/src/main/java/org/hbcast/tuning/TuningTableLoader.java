package org.hbcast.tuning;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.Function;
import org.hbcast.plan.MemoryKind;

/**
 * Reads and validates a tuning table or calibration. Any problem (missing, unreadable, corrupt or
 * truncated JSON, wrong format version, another machine's fingerprint, nonsensical values) gives a
 * warning naming the file and the reason, and no table: the caller falls back to the cost model.
 * Never throws for bad content.
 */
public final class TuningTableLoader {
    private TuningTableLoader() {}

    /** A table that can be used (and no warning), or none and why. */
    public record Loaded<T>(T value, String warning) {
        public boolean ok() {
            return value != null;
        }
    }

    /** The file's bytes, or null when it does not exist; other read errors are returned as a warning. */
    public static Loaded<byte[]> readBytes(Path file) {
        try {
            return new Loaded<>(Files.readAllBytes(file), null);
        } catch (NoSuchFileException e) {
            return new Loaded<>(null, null);
        } catch (IOException | RuntimeException e) {
            return new Loaded<>(null, "hbcast: cannot read " + file + " (" + e + ")");
        }
    }

    /** Parses and validates a table from {@code content} (read from {@code file}, named in warnings). */
    public static Loaded<TuningTable> table(Path file, byte[] content, Fingerprint expected, MemoryKind memory) {
        return parse(
                TuningTable.class,
                content,
                t -> t.problem(expected, memory),
                "tuning table",
                file,
                "choosing from the cost model instead");
    }

    /** Reads and validates a table file; a missing file is a warning too (it was asked for). */
    public static Loaded<TuningTable> table(Path file, Fingerprint expected, MemoryKind memory) {
        Loaded<byte[]> bytes = readBytes(file);
        if (bytes.value() == null) {
            return new Loaded<>(
                    null,
                    bytes.warning() != null
                            ? bytes.warning()
                            : "hbcast: warning: tuning table " + file
                                    + " does not exist; choosing from the cost model instead");
        }
        return table(file, bytes.value(), expected, memory);
    }

    /** Parses a calibration of {@code hardware} from {@code content}; problems are a warning naming the file. */
    public static Loaded<Calibration> calibration(Path file, byte[] content, String hardware) {
        return parse(
                Calibration.class,
                content,
                c -> c.hardware().equals(hardware)
                        ? null
                        : "measured on other hardware ('" + c.hardware() + "', this is '" + hardware + "')",
                "calibration",
                file,
                "using built-in link figures instead");
    }

    /** Parses what earlier runs on {@code fingerprintId} learnt; problems are a warning naming the file. */
    public static Loaded<LearntPlans> learnt(Path file, byte[] content, String fingerprintId) {
        return parse(
                LearntPlans.class,
                content,
                l -> l.problem(fingerprintId),
                "record of learnt plans",
                file,
                "trying the plans again in this run");
    }

    /** Parses {@code content} as a {@code type} and asks {@code problem} about it; any failure is a warning. */
    private static <T> Loaded<T> parse(
            Class<T> type, byte[] content, Function<T, String> problem, String kind, Path file, String fallback) {
        String why;
        try {
            T value = TuningJson.mapper().readValue(content, type);
            why = value == null ? "empty document" : problem.apply(value);
            if (why == null) {
                return new Loaded<>(value, null);
            }
        } catch (IOException | RuntimeException e) {
            why = "not a valid " + kind + ": " + oneLine(e);
        }
        return new Loaded<>(null, "hbcast: warning: " + kind + " " + file + " not used: " + why + "; " + fallback);
    }

    private static String oneLine(Exception e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        int nl = m.indexOf('\n');
        m = nl >= 0 ? m.substring(0, nl) : m;
        return m.length() > 300 ? m.substring(0, 300) + "..." : m;
    }
}
