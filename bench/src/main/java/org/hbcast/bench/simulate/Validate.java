package org.hbcast.bench.simulate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code simulate validate}: simulates the layout of measured runs ({@code scripts/compare}'s
 * {@code merged.json}, or {@code UserProbe --json}) and prints, size by size, the error of the
 * simulation against each measured implementation it can play.
 */
@Command(
        name = "validate",
        mixinStandardHelpOptions = true,
        description = "Print the simulation's error against measured runs (merged.json or UserProbe --json).")
final class Validate implements Callable<Integer> {
    @CommandLine.Mixin
    Simulate.Links links = new Simulate.Links();

    @Option(
            names = "--measured",
            required = true,
            description = "merged.json of scripts/compare, or UserProbe --json output")
    List<Path> measured;

    @Option(names = "--layout", description = "ranks of each host, e.g. 4,2,2 (needed for UserProbe files)")
    String layout;

    @Option(
            names = "--plans-built-in",
            description = "plan hbcast's schedules as a run without a calibration does: from the built-in figures"
                    + " inside a node and the network as its leaders measure it at create (the simulated link)")
    boolean plansBuiltIn;

    @Option(names = "--cores", description = "cores of each measured host, for the plans (default: a core per rank)")
    int cores;

    @Option(
            names = "--egress-only",
            description = "hosts receive unshaped (scripts/testbed shapes each host's egress only)")
    boolean egressOnly;

    @Option(
            names = "--round-robin",
            description = "ranks dealt round-robin over the hosts (mpirun --map-by node: the -rr layouts)")
    boolean roundRobin;

    @Option(names = "--from", description = "smallest size compared (default ${DEFAULT-VALUE})")
    String from = "1M";

    /** One measured column: implementation name and microseconds by size. */
    record Measured(String impl, Map<Long, Double> us) {}

    @Override
    public Integer call() throws IOException {
        long smallest = org.hbcast.bench.ByteSizes.parse(from);
        double worst = 0;
        for (Path file : measured) {
            JsonNode whole = new ObjectMapper().readTree(file.toFile());
            // compare's merged.json wraps the comparison beside the link bound it measured.
            JsonNode doc = whole.has("comparison") ? whole.get("comparison") : whole;
            int[] nodes = layout != null ? parseLayout(layout) : nodesOf(doc, file);
            List<Measured> columns = columns(doc);
            Fabric.Link network = network(whole.get("linkBound"), file);
            Simulator sim = new Simulator(nodes, network, links.inside(), !egressOnly, roundRobin);
            if (plansBuiltIn || cores > 0) {
                int most = java.util.Arrays.stream(nodes).max().orElse(1);
                sim.planningWith(plansBuiltIn ? builtInWithMeasuredNetwork(network) : null, cores > 0 ? cores : most);
            }
            System.out.printf(
                    Locale.ROOT,
                    "# %s on %s%s; network %.4g MB/s, latency %.3g us; %s%n",
                    file,
                    sim.shape(),
                    roundRobin ? ", ranks dealt round-robin" : "",
                    network.bytesPerSecond() / 1e6,
                    network.latencySeconds() * 1e6,
                    links.describeInside());
            System.out.printf(
                    Locale.ROOT,
                    "%-26s %-8s %12s %12s %8s%n",
                    "implementation",
                    "size",
                    "measured ms",
                    "simulated ms",
                    "error");
            for (Measured c : columns) {
                Schedule s = scheduleOf(c.impl());
                if (s == null) {
                    System.out.printf(Locale.ROOT, "%-26s (no simulated counterpart)%n", c.impl());
                    continue;
                }
                for (Map.Entry<Long, Double> e : c.us().entrySet()) {
                    Simulator.Result r = sim.run(s, e.getKey());
                    double simulated = r.seconds();
                    double real = e.getValue() * 1e-6;
                    double error = simulated / real - 1;
                    if (e.getKey() >= smallest) {
                        worst = Math.max(worst, Math.abs(error));
                    }
                    System.out.printf(
                            Locale.ROOT,
                            "%-26s %-8s %12s %12s %+7.1f%%  %s%s%n",
                            c.impl() + " (" + s + ")",
                            Sizes.label(e.getKey()),
                            Simulate.ms(real),
                            Simulate.ms(simulated),
                            100 * error,
                            r.plan(),
                            e.getKey() >= smallest ? "" : "  (below --from)");
                }
            }
        }
        System.out.printf(Locale.ROOT, "largest error from %s: %.1f%%%n", from, 100 * worst);
        return 0;
    }

    /**
     * What a run without a calibration plans from: the built-in figures, but the network as the
     * leaders of its first two nodes measured it at {@code create} (a ping-pong; here the simulated link).
     */
    static Calibration builtInWithMeasuredNetwork(Fabric.Link network) {
        return Calibration.builtIn()
                .withLink(new LinkCalibration(
                        LinkKind.NETWORK,
                        network.latencySeconds(),
                        network.bytesPerSecond(),
                        LinkCalibration.MEASURED_AT_CREATE));
    }

    /** The network link: as given on the command line, else the link bound the file measured. */
    private Fabric.Link network(JsonNode bound, Path file) {
        if (links.bandwidth != null || bound == null) {
            if (links.bandwidth == null) {
                throw new IllegalArgumentException(
                        file + " has no measured link bound: give --bandwidth (e.g. 1gbit) and --latency");
            }
            return links.network();
        }
        double latency = links.latency != null
                ? LinkFigures.seconds(links.latency)
                : bound.get("latencyUs").asDouble() * 1e-6;
        return new Fabric.Link(latency, bound.get("bytesPerSecond").asDouble());
    }

    /** The simulated schedule measured under {@code impl}, or null. */
    static Schedule scheduleOf(String impl) {
        String i = impl.toLowerCase(Locale.ROOT);
        if (i.startsWith("hierarchical")) {
            return i.contains("two-tree")
                    ? Schedule.HIERARCHICAL_TWO_TREE
                    : i.contains("chain")
                            ? Schedule.HIERARCHICAL_CHAIN
                            : i.endsWith("/knomial") ? Schedule.HIERARCHICAL_KNOMIAL : Schedule.HIERARCHICAL;
        }
        return switch (i) {
            case "auto" -> Schedule.AUTO;
            // The library's knomial algorithm leaves the flat shape to the selector unless HBCAST_INTER is set.
            case "knomial" -> Schedule.FLAT;
            case "chain" -> Schedule.CHAIN;
            case "two-tree" -> Schedule.TWO_TREE;
            case "han" -> Schedule.HAN;
            case "mpi", "tuned", "native" -> Schedule.TUNED;
            default -> null;
        };
    }

    static int[] parseLayout(String text) {
        String[] parts = text.split(",");
        int[] sizes = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            sizes[i] = Integer.parseInt(parts[i].strip());
        }
        return sizes;
    }

    private static int[] nodesOf(JsonNode doc, Path file) {
        JsonNode n = doc.get("nodes");
        if (n == null || !n.isArray()) {
            throw new IllegalArgumentException(file + " does not say its layout: give --layout, e.g. 4,2,2");
        }
        int[] sizes = new int[n.size()];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = n.get(i).asInt();
        }
        return sizes;
    }

    /** The measured columns of a merged.json ({@code rows}) or a UserProbe file ({@code impls}). */
    static List<Measured> columns(JsonNode doc) {
        List<Measured> list = new ArrayList<>();
        if (doc.has("impls")) {
            JsonNode sizes = doc.get("sizes");
            for (int k = 0; k < doc.get("impls").size(); k++) {
                Map<Long, Double> us = new LinkedHashMap<>();
                for (int i = 0; i < sizes.size(); i++) {
                    us.put(sizes.get(i).asLong(), doc.get("us").get(k).get(i).asDouble());
                }
                list.add(new Measured(doc.get("impls").get(k).asText(), us));
            }
        } else if (doc.has("rows")) {
            Map<String, Map<Long, Double>> byName = new LinkedHashMap<>();
            for (JsonNode row : doc.get("rows")) {
                long size = row.get("size").asLong();
                row.get("latencyUs")
                        .fields()
                        .forEachRemaining(e -> byName.computeIfAbsent(e.getKey(), k -> new LinkedHashMap<>())
                                .put(size, e.getValue().asDouble()));
            }
            byName.forEach((name, us) -> list.add(new Measured(name, us)));
        } else {
            throw new IllegalArgumentException("neither a merged.json (rows) nor a UserProbe file (impls)");
        }
        return list;
    }
}
