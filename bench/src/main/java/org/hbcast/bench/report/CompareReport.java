package org.hbcast.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Merges the runs {@code hbcast-bench compare} left in a directory (one folder per configuration with
 * {@code config.properties} and {@code round-N.json} files from {@code OsuBcast --json}) into one
 * report: a markdown table on stdout (and in a file), a log-log PNG plot and the merged JSON.
 */
@Command(
        name = "compare-report",
        mixinStandardHelpOptions = true,
        description = "Merge the runs of a broadcast comparison into a markdown table, a PNG plot and JSON.")
public final class CompareReport implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "directory of the comparison's runs")
    Path dir;

    @Option(names = "--layout", description = "layout name for titles (default: the directory's name)")
    String layout;

    @Option(names = "--md", description = "also write the markdown table here")
    Path markdown;

    @Option(names = "--png", description = "write the plot here")
    Path png;

    @Option(names = "--json", description = "write the merged results here")
    Path json;

    @Option(names = "--link", description = "the link bound measured by LinkProbe --json (multi-host layouts)")
    Path link;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(commandLine().execute(args));
    }

    /** The command line; a failure prints one line naming the problem instead of a stack trace. */
    static CommandLine commandLine() {
        return new CommandLine(new CompareReport()).setExecutionExceptionHandler((e, cli, parsed) -> {
            cli.getErr().println("compare-report: " + e.getMessage());
            return 2;
        });
    }

    @Override
    public Integer call() throws Exception {
        System.out.print(write(dir, layout != null ? layout : dir.getFileName().toString(), link, markdown, png, json));
        return 0;
    }

    /**
     * Merges the runs in {@code dir} and writes what is asked for (each of {@code markdown},
     * {@code png}, {@code json} may be null); the markdown table.
     */
    public static String write(Path dir, String layout, Path link, Path markdown, Path png, Path json)
            throws IOException {
        Comparison c = merge(dir, layout);
        LinkBound bound = link != null ? LinkBound.read(link) : null;
        String md = MarkdownReport.render(c, bound);
        if (markdown != null) {
            Files.writeString(markdown, md);
        }
        if (png != null) {
            System.err.println("compare-report: plot " + LatencyPlot.write(c, png));
        }
        if (json != null) {
            Map<String, Object> doc = new LinkedHashMap<>();
            doc.put("comparison", c);
            doc.put("goals", Goals.of(c, bound));
            if (bound != null) {
                doc.put("linkBound", bound);
            }
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(json.toFile(), doc);
        }
        return md;
    }

    /** The runs in {@code dir} merged into one comparison of {@code layout}. */
    public static Comparison merge(Path dir, String layout) throws IOException {
        return ComparisonMerge.merge(layout, configs(dir), runs(dir));
    }

    /** Every configuration folder of {@code dir} (a sub-folder holding config.properties). */
    static List<Config> configs(Path dir) throws IOException {
        List<Config> configs = new ArrayList<>();
        for (Path sub : folders(dir)) {
            Path props = sub.resolve("config.properties");
            if (Files.isRegularFile(props)) {
                Config config = Config.read(props);
                if (!config.name().equals(sub.getFileName().toString())) {
                    throw new IOException(
                            props + " names configuration '" + config.name() + "', not its folder's name");
                }
                configs.add(config);
            }
        }
        if (configs.isEmpty()) {
            throw new IOException("no configuration in " + dir + " (expected <config>/config.properties)");
        }
        return configs;
    }

    /** The round files of each configuration, by configuration name, in round order. */
    static Map<String, List<RunFile>> runs(Path dir) throws IOException {
        Map<String, List<RunFile>> runs = new LinkedHashMap<>();
        for (Config config : configs(dir)) {
            List<RunFile> rounds = new ArrayList<>();
            try (Stream<Path> files = Files.list(dir.resolve(config.name()))) {
                for (Path f : files.filter(p -> p.getFileName().toString().matches("round-\\d+\\.json"))
                        .sorted()
                        .toList()) {
                    rounds.add(RunFile.read(f));
                }
            }
            runs.put(config.name(), rounds);
        }
        return runs;
    }

    private static List<Path> folders(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            throw new IOException("no such directory: " + dir);
        }
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory).sorted().toList();
        }
    }
}
