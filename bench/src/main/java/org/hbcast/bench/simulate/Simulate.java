package org.hbcast.bench.simulate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.hbcast.bench.ByteSizes;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.TuningJson;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code scripts/simulate}: simulated broadcast times past one machine, as a markdown table and
 * plots against node count and message size ({@code run}, the default), the targets
 * ({@code targets}), or the error against measured runs ({@code validate}).
 */
@Command(
        name = "simulate",
        mixinStandardHelpOptions = true,
        subcommands = {Simulate.Targets.class, Validate.class},
        description = "Simulate broadcast schedules on clusters of 2 to 1,024 nodes (no MPI).")
public final class Simulate implements Callable<Integer> {
    /** The link figures and the level inside a node, shared by the subcommands. */
    static final class Links {
        @Option(
                names = "--bandwidth",
                description =
                        "network link rate, e.g. 1gbit, 100gbit (default 100gbit; validate: the file's link bound)")
        String bandwidth;

        @Option(names = "--latency", description = "network latency, e.g. 1.5us (default 1.5us; validate: the file's)")
        String latency;

        @Option(
                names = "--calibration",
                description = "calibration JSON for the level inside a node (default: the built-in figures)")
        Path calibration;

        @Option(
                names = "--intra-bandwidth",
                description = "copy rate inside a node, e.g. 20GB (default: the calibration's shared-memory figures)")
        String intraBandwidth;

        @Option(names = "--intra-latency", description = "start-up of a copy inside a node (default ${DEFAULT-VALUE})")
        String intraLatency = "1us";

        Fabric.Link network() {
            return new Fabric.Link(
                    LinkFigures.seconds(latency == null ? "1.5us" : latency),
                    LinkFigures.bytesPerSecond(bandwidth == null ? "100gbit" : bandwidth));
        }

        Calibration inside() throws IOException {
            Calibration c = calibration == null
                    ? Calibration.builtIn()
                    : TuningJson.mapper().readValue(calibration.toFile(), Calibration.class);
            return intraBandwidth == null
                    ? c
                    : Simulator.withIntraNode(
                            c,
                            new Fabric.Link(
                                    LinkFigures.seconds(intraLatency), LinkFigures.bytesPerSecond(intraBandwidth)));
        }

        String describe() {
            return String.format(
                    Locale.ROOT,
                    "links %.4g Gbit/s (%.3g GB/s), latency %.3g us; %s",
                    network().bytesPerSecond() * 8 / 1e9,
                    network().bytesPerSecond() / 1e9,
                    network().latencySeconds() * 1e6,
                    describeInside());
        }

        String describeInside() {
            return "inside nodes: "
                    + (intraBandwidth != null
                            ? "copies at " + intraBandwidth + ", " + intraLatency
                            : calibration == null ? "built-in figures (4 GB/s, 5 us)" : calibration.toString());
        }
    }

    @CommandLine.Mixin
    Links links = new Links();

    @Option(
            names = "--nodes",
            description = "node counts, e.g. 2,16,256 or 2:1024 (powers of two; default ${DEFAULT-VALUE})")
    String nodes = "2,4,16,64,256,1024";

    @Option(names = "--ranks-per-node", description = "ranks per node, 1 to 8 (default ${DEFAULT-VALUE})")
    int ranksPerNode = 8;

    @Option(
            names = "--sizes",
            description = "message sizes, e.g. 1K:256M (powers of two) or 1M,64M (default ${DEFAULT-VALUE})")
    String sizes = "1K,64K,1M,16M,64M,256M";

    @Option(
            names = "--schedules",
            description = "comma-separated schedules (default: all): knomial, chain, two-tree, hierarchical/knomial,"
                    + " hierarchical/chain, hierarchical/two-tree, auto, han, tuned, flat-binomial")
    String schedules;

    @Option(names = "--out", description = "directory for simulation.md and the plots (default: none, table on stdout)")
    Path out;

    public static void main(String[] args) {
        System.exit(new CommandLine(new Simulate())
                .setExecutionExceptionHandler((e, cli, parsed) -> {
                    cli.getErr().println("simulate: " + e.getMessage());
                    return 2;
                })
                .execute(args));
    }

    static List<Long> sizeList(String text) {
        List<Long> list = new ArrayList<>();
        for (String part : text.split(",")) {
            list.addAll(part.contains(":") ? ByteSizes.powersOfTwo(part) : List.of(ByteSizes.parse(part)));
        }
        return list;
    }

    static List<Integer> nodeList(String text) {
        List<Integer> list = new ArrayList<>();
        for (String part : text.split(",")) {
            if (part.contains(":")) {
                String[] ends = part.split(":");
                for (long n = Integer.parseInt(ends[0].strip()); n <= Integer.parseInt(ends[1].strip()); n *= 2) {
                    list.add((int) n);
                }
            } else {
                list.add(Integer.parseInt(part.strip()));
            }
        }
        for (int n : list) {
            if (n < 1 || n > 1 << 16) {
                throw new IllegalArgumentException("node counts must be 1 to 65536, got " + n);
            }
        }
        return list;
    }

    static List<Schedule> scheduleList(String text) {
        List<Schedule> list = new ArrayList<>();
        if (text == null) {
            list.addAll(List.of(Schedule.values()));
        } else {
            for (String part : text.split(",")) {
                list.add(Schedule.parse(part));
            }
        }
        return list;
    }

    @Override
    public Integer call() throws IOException {
        if (ranksPerNode < 1 || ranksPerNode > 64) {
            throw new IllegalArgumentException("--ranks-per-node must be 1 to 64, got " + ranksPerNode);
        }
        List<Integer> nodeCounts = nodeList(nodes);
        List<Long> sizeList = sizeList(sizes);
        List<Schedule> list = scheduleList(schedules);
        Fabric.Link network = links.network();
        Calibration inside = links.inside();
        StringBuilder md = new StringBuilder();
        md.append("# Simulated broadcast times\n\n")
                .append(links.describe())
                .append("; ")
                .append(ranksPerNode)
                .append(" ranks per node. Times in ms; `bound` is n/B + ceil(log2 N) * latency.\n\n");
        md.append("| nodes | size | bound |");
        list.forEach(s -> md.append(' ').append(s).append(" |"));
        md.append("\n|---|---|---|");
        list.forEach(s -> md.append("---|"));
        md.append('\n');
        // times[node index][size index][schedule index]
        double[][][] times = new double[nodeCounts.size()][sizeList.size()][list.size()];
        for (int a = 0; a < nodeCounts.size(); a++) {
            Simulator sim = new Simulator(nodeCounts.get(a), ranksPerNode, network, inside);
            for (int b = 0; b < sizeList.size(); b++) {
                long m = sizeList.get(b);
                md.append(String.format(
                        Locale.ROOT, "| %d | %s | %s |", nodeCounts.get(a), Sizes.label(m), ms(sim.lowerBound(m))));
                for (int k = 0; k < list.size(); k++) {
                    times[a][b][k] = sim.run(list.get(k), m).seconds();
                    md.append(' ').append(ms(times[a][b][k])).append(" |");
                }
                md.append('\n');
            }
        }
        System.out.print(md);
        if (out != null) {
            Files.createDirectories(out);
            Files.writeString(out.resolve("simulation.md"), md.toString());
            int bigSize = sizeList.size() - 1;
            int manyNodes = nodeCounts.size() - 1;
            Map<String, double[][]> byNodes = new LinkedHashMap<>();
            Map<String, double[][]> bySize = new LinkedHashMap<>();
            double[][] boundByNodes = new double[2][nodeCounts.size()];
            for (int a = 0; a < nodeCounts.size(); a++) {
                boundByNodes[0][a] = nodeCounts.get(a);
                boundByNodes[1][a] = Simulator.lowerBound(sizeList.get(bigSize), nodeCounts.get(a), network);
            }
            double[][] boundBySize = new double[2][sizeList.size()];
            for (int b = 0; b < sizeList.size(); b++) {
                boundBySize[0][b] = sizeList.get(b);
                boundBySize[1][b] = Simulator.lowerBound(sizeList.get(b), nodeCounts.get(manyNodes), network);
            }
            byNodes.put("bound", boundByNodes);
            bySize.put("bound", boundBySize);
            for (int k = 0; k < list.size(); k++) {
                double[][] n = new double[2][nodeCounts.size()];
                for (int a = 0; a < nodeCounts.size(); a++) {
                    n[0][a] = nodeCounts.get(a);
                    n[1][a] = times[a][bigSize][k];
                }
                byNodes.put(list.get(k).toString(), n);
                double[][] s = new double[2][sizeList.size()];
                for (int b = 0; b < sizeList.size(); b++) {
                    s[0][b] = sizeList.get(b);
                    s[1][b] = times[manyNodes][b][k];
                }
                bySize.put(list.get(k).toString(), s);
            }
            SimulationPlot.write(
                    out.resolve("time-vs-nodes.png"),
                    "Simulated broadcast of " + Sizes.label(sizeList.get(bigSize)) + ", " + ranksPerNode
                            + " ranks per node, " + links.describe(),
                    "nodes",
                    byNodes);
            SimulationPlot.write(
                    out.resolve("time-vs-size.png"),
                    "Simulated broadcast on " + nodeCounts.get(manyNodes) + " nodes x " + ranksPerNode + ", "
                            + links.describe(),
                    "message size (bytes)",
                    bySize);
            System.out.println("wrote " + out.resolve("simulation.md") + ", time-vs-nodes.png, time-vs-size.png");
        }
        return 0;
    }

    static String ms(double seconds) {
        return String.format(Locale.ROOT, "%.4g", seconds * 1e3);
    }

    /** The simulation targets at 256 nodes x 8 ranks, 64 MiB. */
    @Command(
            name = "targets",
            mixinStandardHelpOptions = true,
            description = "Check the simulation targets: hbcast within 1.15x of the bound and 4x faster than han.")
    static final class Targets implements Callable<Integer> {
        @CommandLine.Mixin
        Links links = new Links();

        @Option(names = "--nodes", description = "nodes (default ${DEFAULT-VALUE})")
        int nodes = 256;

        @Option(names = "--ranks-per-node", description = "ranks per node (default ${DEFAULT-VALUE})")
        int ranksPerNode = 8;

        @Option(names = "--bytes", description = "message size (default ${DEFAULT-VALUE})")
        String bytes = "64M";

        @Override
        public Integer call() throws IOException {
            long m = ByteSizes.parse(bytes);
            Simulator sim = new Simulator(nodes, ranksPerNode, links.network(), links.inside());
            double bound = sim.lowerBound(m);
            double han = sim.run(Schedule.HAN, m).seconds();
            System.out.printf(
                    Locale.ROOT,
                    "# targets at %d nodes x %d ranks, %s; %s%n# lower bound n/B + ceil(log2 N) * latency = %s ms;"
                            + " han %s ms%n",
                    nodes,
                    ranksPerNode,
                    Sizes.label(m),
                    links.describe(),
                    ms(bound),
                    ms(han));
            System.out.printf(Locale.ROOT, "%-24s %10s %9s %9s  %s%n", "schedule", "ms", "/bound", "han/this", "plan");
            boolean met = true;
            for (Schedule s : Schedule.values()) {
                Simulator.Result r = sim.run(s, m);
                System.out.printf(
                        Locale.ROOT,
                        "%-24s %10s %9.3f %9.2f  %s%n",
                        s,
                        ms(r.seconds()),
                        r.seconds() / bound,
                        han / r.seconds(),
                        r.plan());
                if (s == Schedule.AUTO) {
                    boolean bounded = r.seconds() <= 1.15 * bound;
                    boolean faster = han >= 4 * r.seconds();
                    met = bounded && faster;
                    System.out.printf(
                            Locale.ROOT,
                            "target auto within 1.15x of the bound: %s (%.3fx); at least 4x faster than han: %s (%.2fx)%n",
                            bounded ? "MET" : "MISSED",
                            r.seconds() / bound,
                            faster ? "MET" : "MISSED",
                            han / r.seconds());
                }
            }
            return met ? 0 : 1;
        }
    }
}
