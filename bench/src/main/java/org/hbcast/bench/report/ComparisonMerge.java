package org.hbcast.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Merges the runs of a comparison into a {@link Comparison}: medians over rounds per column and
 * size, best native, ratios and the copy-bound fraction. Pure: no files, no MPI.
 */
public final class ComparisonMerge {
    /** Smallest message size the copy-bound fraction is given for. */
    public static final long COPY_BOUND_FROM = 64 * Sizes.KIB;

    private ComparisonMerge() {}

    /**
     * @param layout  name of the layout
     * @param configs every configuration, measured or not
     * @param runs    the rounds of each configuration by name (a configuration may have none)
     * @throws IllegalArgumentException if the runs disagree on ranks or nodes, or two columns clash
     */
    public static Comparison merge(String layout, List<Config> configs, Map<String, List<RunFile>> runs) {
        List<Config> ordered = new ArrayList<>(configs);
        ordered.sort((a, b) -> Integer.compare(a.order(), b.order()));
        int[] shape = shape(runs);
        List<Comparison.Column> columns = columns(ordered, runs);
        // column -> size -> one value per round
        Map<String, TreeMap<Long, List<Double>>> values = new LinkedHashMap<>();
        TreeMap<Long, List<Double>> copies = new TreeMap<>();
        Set<Long> sizes = new TreeSet<>();
        int rounds = 0;
        for (Comparison.Column column : columns) {
            values.put(column.name(), new TreeMap<>());
        }
        for (Config config : ordered) {
            List<RunFile> rs = runs.getOrDefault(config.name(), List.of());
            rounds = Math.max(rounds, rs.size());
            for (RunFile run : rs) {
                for (RunFile.Sample s : run.samples()) {
                    sizes.add(s.size());
                    s.avgUs()
                            .forEach((impl, us) -> values.get(columnName(config, impl))
                                    .computeIfAbsent(s.size(), k -> new ArrayList<>())
                                    .add(us));
                    if (s.memcpyUs() != null) {
                        copies.computeIfAbsent(s.size(), k -> new ArrayList<>()).add(s.memcpyUs());
                    }
                }
            }
        }
        int ranks = shape[0];
        int[] nodes = Arrays.copyOfRange(shape, 1, shape.length);
        List<Comparison.Row> rows = new ArrayList<>();
        for (long size : sizes) {
            Map<String, Double> latency = new LinkedHashMap<>();
            for (Comparison.Column column : columns) {
                List<Double> v = values.get(column.name()).get(size);
                if (v != null) {
                    latency.put(column.name(), median(v));
                }
            }
            rows.add(row(size, latency, columns, copies.get(size), ranks, nodes.length == 1));
        }
        return new Comparison(
                layout, ranks, nodes, rounds, List.copyOf(ordered), List.copyOf(columns), List.copyOf(rows));
    }

    static Comparison.Row row(
            long size,
            Map<String, Double> latency,
            List<Comparison.Column> columns,
            List<Double> copies,
            int ranks,
            boolean singleNode) {
        Double best = null;
        String bestName = null;
        for (Comparison.Column column : columns) {
            Double us = latency.get(column.name());
            if (column.openMpi() && us != null && (best == null || us < best)) {
                best = us;
                bestName = column.name();
            }
        }
        Double auto = latency.get(Comparison.AUTO);
        Double ratio = best != null && auto != null ? best / auto : null;
        Double copyUs = copies == null ? null : median(copies);
        // Below COPY_BOUND_FROM a memcpy is timer noise and start-up costs dominate: no bound there.
        Double fraction = singleNode && size >= COPY_BOUND_FROM && copyUs != null && auto != null && ranks > 1
                ? (ranks - 1) * copyUs / auto
                : null;
        return new Comparison.Row(size, latency, best, bestName, ratio, copyUs, fraction);
    }

    /** The median; the mean of the two middle values for an even count. */
    public static double median(List<Double> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException("median of no values");
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    private static String columnName(Config config, String impl) {
        return config.openMpi() ? config.name() : impl;
    }

    private static List<Comparison.Column> columns(List<Config> ordered, Map<String, List<RunFile>> runs) {
        List<Comparison.Column> columns = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (Config config : ordered) {
            Set<String> names = new LinkedHashSet<>();
            if (config.openMpi()) {
                names.add(config.name());
            }
            for (RunFile run : runs.getOrDefault(config.name(), List.of())) {
                if (config.openMpi() && !run.impls().equals(List.of("native"))) {
                    throw new IllegalArgumentException("Open MPI configuration " + config.name()
                            + " must be measured with --impl native alone, not " + run.impls());
                }
                run.impls().forEach(impl -> names.add(columnName(config, impl)));
            }
            for (String name : names) {
                if (!seen.add(name)) {
                    throw new IllegalArgumentException("two configurations give a column named '" + name + "'");
                }
                columns.add(new Comparison.Column(name, config.openMpi(), config.name()));
            }
        }
        return columns;
    }

    /** {ranks, node sizes...} shared by every run; an error naming the configuration that differs. */
    private static int[] shape(Map<String, List<RunFile>> runs) {
        int[] shape = null;
        String first = null;
        for (Map.Entry<String, List<RunFile>> e : runs.entrySet()) {
            for (RunFile run : e.getValue()) {
                int[] s = new int[run.nodes().length + 1];
                s[0] = run.ranks();
                System.arraycopy(run.nodes(), 0, s, 1, run.nodes().length);
                if (shape == null) {
                    shape = s;
                    first = e.getKey();
                } else if (!Arrays.equals(shape, s)) {
                    throw new IllegalArgumentException("runs of " + e.getKey() + " had " + run.ranks()
                            + " ranks on nodes "
                            + Arrays.toString(run.nodes()) + ", runs of " + first + " " + shape[0] + " ranks on nodes "
                            + Arrays.toString(Arrays.copyOfRange(shape, 1, shape.length)));
                }
            }
        }
        if (shape == null) {
            throw new IllegalArgumentException("no runs to merge");
        }
        return shape;
    }
}
