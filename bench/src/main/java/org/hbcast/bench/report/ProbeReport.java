package org.hbcast.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The user-style table of {@code scripts/compare}: reads the {@code UserProbe --json} files of a
 * directory, one per Open MPI configuration ({@code mpi,auto,mpi}: auto beside that configuration,
 * with its A/A floor) and {@code hbcast.json} (auto beside hbcast's own plans), and renders, per
 * size, auto against the best Open MPI configuration (each ratio measured side by side in one run)
 * and against hbcast's best plan, then the first calls of fresh instances.
 */
@Command(
        name = "probe-report",
        mixinStandardHelpOptions = true,
        description = "Render the user-style probe runs of a comparison as markdown.")
public final class ProbeReport implements Callable<Integer> {
    @Option(
            names = "--dir",
            required = true,
            description = "directory of UserProbe JSON files (CONFIG.json, hbcast.json)")
    Path dir;

    @Option(names = "--md", description = "also write the markdown here")
    Path markdown;

    @Option(names = "--link", description = "the link bound measured by LinkProbe --json (multi-host layouts)")
    Path link;

    /** One probe run: its name, implementations, sizes and figures (us[impl][size]). */
    record Run(String name, List<String> impls, long[] sizes, double[][] us, JsonNode cold, String method) {
        int column(String impl) {
            return impls.indexOf(impl);
        }

        /** The A/A floor of the run: the larger deviation from 1 of the first column against its twin. */
        double floor(int s) {
            int twin = impls.subList(1, impls.size()).indexOf(impls.get(0)) + 1;
            return twin == 0 ? Double.NaN : Math.max(us[0][s] / us[twin][s], us[twin][s] / us[0][s]);
        }
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ProbeReport())
                .setExecutionExceptionHandler((e, cli, parsed) -> {
                    cli.getErr().println("probe-report: " + e.getMessage());
                    return 2;
                })
                .execute(args));
    }

    @Override
    public Integer call() throws IOException {
        String md = renderDirectory(dir, link != null ? LinkBound.read(link) : null);
        System.out.print(md);
        if (markdown != null) {
            Files.writeString(markdown, md);
        }
        return 0;
    }

    /** The report of the probe runs in {@code dir}. */
    public static String renderDirectory(Path dir) throws IOException {
        return renderDirectory(dir, null);
    }

    /** As {@link #renderDirectory(Path)}, with every implementation's fraction of {@code link}'s bound. */
    public static String renderDirectory(Path dir, LinkBound link) throws IOException {
        List<Run> natives = new ArrayList<>();
        Run own = readDirectory(dir, natives);
        List<Goals.Point> points = points(natives, own, link);
        List<Goals.Goal> goals = Goals.of(points, false, link != null);
        String md = headline(points, goals)
                + render(natives, own)
                + Goals.render("Goals, as users call it (complete broadcasts, the slowest rank)", goals);
        return link == null ? md : md + "\n" + boundTable(natives, own, link);
    }

    /**
     * Reads the probe runs of {@code dir}: those of Open MPI configurations into {@code natives}, in
     * name order; returns hbcast's own run, or null.
     */
    private static Run readDirectory(Path dir, List<Run> natives) throws IOException {
        Run own = null;
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f :
                    files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                Run r = read(f);
                if (r.name().equals("hbcast")) {
                    own = r;
                } else if (r.column("mpi") >= 0 && r.column("auto") >= 0) {
                    natives.add(r);
                }
            }
        }
        if (natives.isEmpty() && own == null) {
            throw new IOException("no UserProbe JSON files in " + dir);
        }
        return own;
    }

    /**
     * The probe's cells of the summary of both methods ({@link BothMethodsSummary}): per size, the
     * fastest Open MPI configuration (as the probe's table names it), its time over auto's beside it
     * and that run's A/A floor.
     */
    public static SortedMap<Long, BothMethodsSummary.Cell> summaryCells(Path dir) throws IOException {
        List<Run> natives = new ArrayList<>();
        readDirectory(dir, natives);
        return summaryCells(natives);
    }

    static SortedMap<Long, BothMethodsSummary.Cell> summaryCells(List<Run> natives) {
        SortedMap<Long, Double> fastest = new TreeMap<>();
        SortedMap<Long, BothMethodsSummary.Cell> cells = new TreeMap<>();
        for (Run r : natives) {
            for (int i = 0; i < r.sizes().length; i++) {
                double mpi = r.us()[r.column("mpi")][i];
                Double before = fastest.get(r.sizes()[i]);
                if (before == null || mpi < before) {
                    fastest.put(r.sizes()[i], mpi);
                    cells.put(
                            r.sizes()[i],
                            new BothMethodsSummary.Cell(r.name(), mpi / r.us()[r.column("auto")][i], r.floor(i)));
                }
            }
        }
        return cells;
    }

    /**
     * Per size: the best Open MPI configuration's time over auto's beside it, and auto's fraction of the
     * link bound (hbcast's own run's auto where there is one).
     */
    static List<Goals.Point> points(List<Run> natives, Run own, LinkBound link) {
        Run sizesFrom = !natives.isEmpty() ? natives.get(0) : own;
        List<Goals.Point> points = new ArrayList<>();
        for (long size : sizesFrom.sizes()) {
            Double ratio = null;
            Double autoUs = null;
            for (Run r : natives) {
                int i = indexOf(r, size);
                if (i < 0) {
                    continue;
                }
                double mine = r.us()[r.column("mpi")][i] / r.us()[r.column("auto")][i];
                ratio = ratio == null ? mine : Math.min(ratio, mine);
                autoUs = r.us()[r.column("auto")][i];
            }
            if (own != null && indexOf(own, size) >= 0) {
                autoUs = own.us()[own.column("auto")][indexOf(own, size)];
            }
            Double linkFraction = link == null || autoUs == null ? null : link.fraction(size, autoUs);
            points.add(new Goals.Point(size, ratio, null, linkFraction));
        }
        return points;
    }

    /** The report's first lines: auto against the best Open MPI over every size, and the goals met. */
    static String headline(List<Goals.Point> points, List<Goals.Goal> goals) {
        Goals.Point low = null;
        Goals.Point high = null;
        for (Goals.Point p : points) {
            if (p.ratio() == null) {
                continue;
            }
            low = low == null || p.ratio() < low.ratio() ? p : low;
            high = high == null || p.ratio() > high.ratio() ? p : high;
        }
        long judged = goals.stream().filter(g -> g.met() != null).count();
        long met = goals.stream().filter(g -> Boolean.TRUE.equals(g.met())).count();
        StringBuilder md = new StringBuilder("## Headline, as users call it\n\n");
        if (low != null) {
            md.append(String.format(
                    Locale.ROOT,
                    "auto against the best Open MPI configuration beside it (its time / auto's, above 1 auto is"
                            + " faster): from %.2fx at %s to %.2fx at %s. ",
                    low.ratio(),
                    Sizes.format(low.size()),
                    high.ratio(),
                    Sizes.format(high.size())));
        }
        md.append("Goals met: ").append(met).append(" of ").append(judged).append(" measured.\n\n");
        return md.toString();
    }

    /**
     * Each Open MPI configuration (its {@code mpi} column), auto beside it, and hbcast's own plans,
     * as fractions of the link bound; auto's figure is the one of hbcast's own run where there is one.
     */
    static String boundTable(List<Run> natives, Run own, LinkBound link) {
        Map<Long, Map<String, Double>> us = new TreeMap<>();
        List<String> columns = new ArrayList<>();
        for (Run r : natives) {
            columns.add(r.name());
            for (int i = 0; i < r.sizes().length; i++) {
                us.computeIfAbsent(r.sizes()[i], k -> new LinkedHashMap<>()).put(r.name(), r.us()[r.column("mpi")][i]);
                us.get(r.sizes()[i]).putIfAbsent("auto", r.us()[r.column("auto")][i]);
            }
        }
        if (own != null) {
            for (String impl : own.impls()) {
                if (!columns.contains(impl)) {
                    columns.add(impl);
                }
            }
            for (int i = 0; i < own.sizes().length; i++) {
                for (String impl : own.impls()) {
                    us.computeIfAbsent(own.sizes()[i], k -> new LinkedHashMap<>())
                            .put(impl, own.us()[own.column(impl)][i]);
                }
            }
        } else if (!natives.isEmpty()) {
            columns.add("auto");
        }
        return link.table("Fraction of the link bound (user-style figures)", columns, us);
    }

    static Run read(Path file) throws IOException {
        JsonNode doc = new ObjectMapper().readTree(file.toFile());
        List<String> impls = new ArrayList<>();
        doc.get("impls").forEach(n -> impls.add(n.asText()));
        JsonNode sizes = doc.get("sizes");
        long[] s = new long[sizes.size()];
        for (int i = 0; i < s.length; i++) {
            s[i] = sizes.get(i).asLong();
        }
        double[][] us = new double[impls.size()][s.length];
        for (int k = 0; k < impls.size(); k++) {
            for (int i = 0; i < s.length; i++) {
                us[k][i] = doc.get("us").get(k).get(i).asDouble();
            }
        }
        String name = file.getFileName().toString().replaceFirst("\\.json$", "");
        String method = String.format(
                Locale.ROOT,
                "%d warm-up calls, blocks of %d calls interleaved with the other"
                        + " implementations, a block's time the slowest rank's, the median of %d blocks",
                doc.get("warmup").asInt(),
                doc.get("calls").asInt(),
                doc.get("blocks").asInt());
        return new Run(name, impls, s, us, doc.get("cold"), method);
    }

    static String render(List<Run> natives, Run own) {
        StringBuilder md = new StringBuilder();
        Run sizesFrom = !natives.isEmpty() ? natives.get(0) : own;
        md.append("## As users call it: the user-style probe\n\n")
                .append("Fresh cache, `HierarchicalBcast.create` then ")
                .append(sizesFrom.method())
                .append(" (`org.hbcast.bench.UserProbe`). Each Open MPI configuration ran in its own launch beside")
                .append(" `auto`; a ratio is always of two figures of one run. Above 1, auto is faster. A/A: the same")
                .append(" configuration against itself in that run; a ratio within it is noise.\n\n");
        if (!natives.isEmpty()) {
            md.append(
                    "| size | best Open MPI | its time (us) | auto beside it (us) | best Open MPI / auto | its A/A |");
            if (own != null) {
                md.append(" best hbcast plan | its time (us) | auto beside it (us) | best plan / auto | its A/A |");
            }
            md.append('\n').append("|---|---|---|---|---|---|").append(own != null ? "---|---|---|---|---|\n" : "\n");
        } else {
            md.append(
                            "| size | best hbcast plan | its time (us) | auto beside it (us) | best plan / auto | its A/A |\n")
                    .append("|---|---|---|---|---|---|\n");
        }
        for (int s = 0; s < sizesFrom.sizes().length; s++) {
            long size = sizesFrom.sizes()[s];
            md.append("| ").append(Sizes.format(size)).append(" |");
            if (!natives.isEmpty()) {
                Run best = null;
                for (Run r : natives) {
                    int i = indexOf(r, size);
                    if (i >= 0
                            && (best == null
                                    || r.us()[r.column("mpi")][i]
                                            < best.us()[best.column("mpi")][indexOf(best, size)])) {
                        best = r;
                    }
                }
                appendBest(md, best, best == null ? -1 : indexOf(best, size), "mpi");
            }
            if (own != null) {
                int i = indexOf(own, size);
                String plan = null;
                for (String impl : own.impls()) {
                    if (!impl.equals("auto")
                            && (plan == null || own.us()[own.column(impl)][i] < own.us()[own.column(plan)][i])) {
                        plan = impl;
                    }
                }
                appendBest(md, plan == null ? null : own, i, plan);
            }
            md.append('\n');
        }
        md.append("\nFirst calls of a fresh instance (`create` timed, then calls 1, 1-10 and 1-100 from a barrier, the")
                .append(" slowest rank's; the first instance of the launch runs with a cold JIT):\n\n")
                .append(
                        "| run | size | implementation | create (ms) | first call (us) | mean of first 10 (us) | mean of first 100 (us) |\n")
                .append("|---|---|---|---|---|---|---|\n");
        List<Run> all = new ArrayList<>(natives);
        if (own != null) {
            all.add(own);
        }
        for (Run r : all) {
            if (r.cold() == null) {
                continue;
            }
            for (JsonNode c : r.cold()) {
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %s | %.1f | %.1f | %.1f | %.1f |%n",
                        r.name(),
                        Sizes.format(c.get("size").asLong()),
                        c.get("impl").asText(),
                        c.get("createMs").asDouble(),
                        c.get("firstUs").asDouble(),
                        c.get("first10Us").asDouble(),
                        c.get("first100Us").asDouble()));
            }
        }
        return md.toString();
    }

    private static void appendBest(StringBuilder md, Run run, int i, String impl) {
        if (run == null || i < 0) {
            md.append(" - | - | - | - | - |");
            return;
        }
        double best = run.us()[run.column(impl)][i];
        double auto = run.us()[run.column("auto")][i];
        md.append(String.format(
                Locale.ROOT,
                " %s | %.2f | %.2f | %.2f | %.2f |",
                impl.equals("mpi") ? run.name() : impl,
                best,
                auto,
                best / auto,
                run.floor(i)));
    }

    private static int indexOf(Run r, long size) {
        for (int i = 0; i < r.sizes().length; i++) {
            if (r.sizes()[i] == size) {
                return i;
            }
        }
        return -1;
    }
}
