package org.hbcast.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What one rank of an MPI test program reported: the cases it ran, each failed case with its
 * message, and named figures (numbers) and notes (texts) for the test to check. A rank's
 * {@link RankReport} makes one; the frame writes it as {@code rank-N.json}; {@link MpiOutcome}
 * reads it back.
 *
 * @param rank      the rank in {@code MPI.COMM_WORLD}
 * @param completed whether the program's body returned (false: it threw, and the rank aborted the job)
 * @param cases     cases that ran to an end, passed or failed
 * @param failures  every failed case, in the order they failed, and what escaped the body outside a case
 * @param figures   named numbers: {@link Long} or {@link Double}
 * @param notes     named texts, e.g. the message of an error a case expected
 */
public record RankResult(
        int rank,
        boolean completed,
        int cases,
        List<Failure> failures,
        Map<String, Number> figures,
        Map<String, String> notes) {

    /** One failed case. */
    public record Failure(String caseName, String message) {
        public Failure {
            Objects.requireNonNull(caseName, "caseName");
            message = String.valueOf(message);
        }

        @Override
        public String toString() {
            return "case '" + caseName + "': " + message;
        }
    }

    public RankResult {
        failures = List.copyOf(failures);
        figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
        notes = Collections.unmodifiableMap(new LinkedHashMap<>(notes));
        for (Number n : figures.values()) {
            if (!(n instanceof Long) && !(n instanceof Double)) {
                throw new IllegalArgumentException(
                        "a figure is a Long or a Double, not " + n.getClass().getName());
            }
        }
    }

    /** The body returned and no case failed. */
    public boolean ok() {
        return completed && failures.isEmpty();
    }

    /** The file a rank's result goes to in the launch's results directory. */
    public static String fileName(int rank) {
        return "rank-" + rank + ".json";
    }

    /**
     * Writes this result into {@code dir} as {@link #fileName}: to a temporary file first, then
     * renamed, so that a reader never sees half a file (a rank may be killed while writing).
     */
    public Path writeTo(Path dir) throws IOException {
        Path target = dir.resolve(fileName(rank));
        Path tmp = Files.createTempFile(dir, "rank-" + rank + "-", ".tmp");
        try {
            Files.writeString(tmp, toJson(), StandardCharsets.US_ASCII);
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
        return target;
    }

    /**
     * This result as JSON, written by hand: the frame runs on classpaths that hold only the
     * program, the frame and mpi.jar (AgentIT's), so it cannot count on Jackson. Plain ASCII
     * (everything else escaped); non-finite figures as {@code NaN}, {@code Infinity}, {@code -Infinity},
     * which the reader allows.
     */
    public String toJson() {
        StringBuilder sb = new StringBuilder(256);
        sb.append("{\"rank\":")
                .append(rank)
                .append(",\"completed\":")
                .append(completed)
                .append(",\"cases\":")
                .append(cases)
                .append(",\"failures\":[");
        String sep = "";
        for (Failure f : failures) {
            sb.append(sep).append("{\"case\":");
            quote(sb, f.caseName());
            sb.append(",\"message\":");
            quote(sb, f.message());
            sb.append('}');
            sep = ",";
        }
        sb.append("],\"figures\":{");
        sep = "";
        for (Map.Entry<String, Number> e : figures.entrySet()) {
            sb.append(sep);
            quote(sb, e.getKey());
            // Double.toString of a finite double ("1.0E-5", "-0.0") is a JSON number.
            sb.append(':').append(e.getValue());
            sep = ",";
        }
        sb.append("},\"notes\":{");
        sep = "";
        for (Map.Entry<String, String> e : notes.entrySet()) {
            sb.append(sep);
            quote(sb, e.getKey());
            sb.append(':');
            quote(sb, e.getValue());
            sep = ",";
        }
        return sb.append("}}\n").toString();
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                sb.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                sb.append(c);
            } else {
                sb.append(String.format("\\u%04x", (int) c));
            }
        }
        sb.append('"');
    }

    /** One line for verdicts and failure messages. */
    public String summary() {
        StringBuilder sb = new StringBuilder().append(cases).append(cases == 1 ? " case" : " cases");
        if (!failures.isEmpty()) {
            sb.append(", ").append(failures.size()).append(" failed: ").append(failures);
        }
        if (!completed) {
            sb.append(", aborted");
        }
        if (!figures.isEmpty()) {
            sb.append(", figures ").append(figures);
        }
        if (!notes.isEmpty()) {
            sb.append(", notes ").append(notes);
        }
        return sb.toString();
    }
}
