package org.hbcast.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One run of {@code OsuBcast --json}: the layout it ran on and, per message size, the average
 * latency of each implementation it measured (and the memcpy time, where it was asked for).
 */
public record RunFile(int ranks, int[] nodes, List<String> impls, List<Sample> samples) {

    /** One size of a run: average latency per implementation in microseconds; memcpyUs or null. */
    public record Sample(long size, Map<String, Double> avgUs, Double memcpyUs) {}

    /** Reads a JSON file written by {@code OsuBcast --json}; a missing field is an error naming it. */
    public static RunFile read(Path file) throws IOException {
        JsonNode doc = new ObjectMapper().readTree(file.toFile());
        if (doc == null || !doc.isObject()) {
            throw new IOException(file + " is not an OsuBcast JSON document");
        }
        List<String> impls = new ArrayList<>();
        require(doc, "impls", file).forEach(n -> impls.add(n.asText()));
        JsonNode nodeSizes = require(doc, "nodes", file);
        int[] nodes = new int[nodeSizes.size()];
        for (int i = 0; i < nodes.length; i++) {
            nodes[i] = nodeSizes.get(i).asInt();
        }
        List<Sample> samples = new ArrayList<>();
        for (JsonNode row : require(doc, "rows", file)) {
            Map<String, Double> avg = new LinkedHashMap<>();
            for (String impl : impls) {
                avg.put(impl, require(row, impl + "_avg_us", file).asDouble());
            }
            JsonNode copy = row.get("memcpy_us");
            samples.add(new Sample(require(row, "size", file).asLong(), avg, copy == null ? null : copy.asDouble()));
        }
        return new RunFile(require(doc, "ranks", file).asInt(), nodes, List.copyOf(impls), List.copyOf(samples));
    }

    private static JsonNode require(JsonNode node, String field, Path file) throws IOException {
        JsonNode value = node.get(field);
        if (value == null) {
            throw new IOException(file + ": field '" + field + "' is missing (not written by OsuBcast --json?)");
        }
        return value;
    }
}
