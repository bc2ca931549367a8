package org.hbcast.testing;

import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** Reads the {@link RankResult} files a launch's ranks wrote, strictly: a file that is not one is a problem, not a guess. */
final class ResultFiles {
    private static final Pattern NAME = Pattern.compile("rank-(\\d+)\\.json");
    /** The writer puts non-finite figures as bare NaN and Infinity. */
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .build();

    /** What a results directory held: each rank's result, and why a rank's file could not be read. */
    record Contents(Map<Integer, RankResult> results, Map<Integer, String> unreadable) {}

    private ResultFiles() {}

    /** Every {@code rank-N.json} in {@code dir}; temporary files of writes that did not finish are left out. */
    static Contents readAll(Path dir) {
        Map<Integer, RankResult> results = new LinkedHashMap<>();
        Map<Integer, String> unreadable = new LinkedHashMap<>();
        if (dir == null || !Files.isDirectory(dir)) {
            return new Contents(results, unreadable);
        }
        List<Path> files;
        try (Stream<Path> list = Files.list(dir)) {
            files = list.sorted().toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot list the results directory " + dir, e);
        }
        for (Path file : files) {
            Matcher m = NAME.matcher(file.getFileName().toString());
            if (!m.matches()) {
                continue;
            }
            int rank = Integer.parseInt(m.group(1));
            try {
                RankResult r = read(file);
                if (r.rank() != rank) {
                    throw new IOException("it holds the result of rank " + r.rank());
                }
                results.put(rank, r);
            } catch (IOException e) {
                unreadable.put(rank, file.getFileName() + " is not a result: " + e.getMessage());
            }
        }
        return new Contents(results, unreadable);
    }

    /** One result file; an {@link IOException} says what is wrong with it. */
    static RankResult read(Path file) throws IOException {
        JsonNode root = JSON.readTree(file.toFile());
        if (root == null || !root.isObject()) {
            throw new IOException("not a JSON object");
        }
        int rank = integer(root, "rank");
        boolean completed =
                field(root, "completed", JsonNode::isBoolean, "true or false").booleanValue();
        int cases = integer(root, "cases");
        if (cases < 0) {
            throw new IOException("cases is " + cases);
        }
        List<RankResult.Failure> failures = new ArrayList<>();
        for (JsonNode f : field(root, "failures", JsonNode::isArray, "an array")) {
            if (!f.isObject()) {
                throw new IOException("a failure is not an object: " + f);
            }
            failures.add(new RankResult.Failure(
                    field(f, "case", JsonNode::isTextual, "a string").textValue(),
                    field(f, "message", JsonNode::isTextual, "a string").textValue()));
        }
        Map<String, Number> figures = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e :
                field(root, "figures", JsonNode::isObject, "an object").properties()) {
            JsonNode v = e.getValue();
            if (v.isIntegralNumber() && v.canConvertToLong()) {
                figures.put(e.getKey(), v.longValue());
            } else if (v.isFloatingPointNumber()) {
                figures.put(e.getKey(), v.doubleValue());
            } else {
                throw new IOException("figure " + e.getKey() + " is not a number: " + v);
            }
        }
        Map<String, String> notes = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e :
                field(root, "notes", JsonNode::isObject, "an object").properties()) {
            if (!e.getValue().isTextual()) {
                throw new IOException("note " + e.getKey() + " is not a string: " + e.getValue());
            }
            notes.put(e.getKey(), e.getValue().textValue());
        }
        return new RankResult(rank, completed, cases, failures, figures, notes);
    }

    private static int integer(JsonNode node, String name) throws IOException {
        JsonNode v = field(node, name, JsonNode::isIntegralNumber, "a whole number");
        if (!v.canConvertToInt()) {
            throw new IOException(name + " is out of range: " + v);
        }
        return v.intValue();
    }

    private interface Kind {
        boolean is(JsonNode node);
    }

    private static JsonNode field(JsonNode node, String name, Kind kind, String what) throws IOException {
        JsonNode v = node.get(name);
        if (v == null || !kind.is(v)) {
            throw new IOException(name + " is " + (v == null ? "missing" : "not " + what + ": " + v));
        }
        return v;
    }
}
