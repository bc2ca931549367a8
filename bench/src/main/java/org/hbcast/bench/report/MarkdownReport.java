package org.hbcast.bench.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** Renders a {@link Comparison} as markdown: the latency table, what each column is, the goals. */
public final class MarkdownReport {
    static final String MISSING = "n/a";

    private MarkdownReport() {}

    public static String render(Comparison c) {
        return render(c, null);
    }

    /** As {@link #render(Comparison)}, with each column's fraction of {@code link}'s bound where it is measured. */
    public static String render(Comparison c, LinkBound link) {
        boolean copies = c.rows().stream().anyMatch(r -> r.memcpyUs() != null);
        boolean bound = c.rows().stream().anyMatch(r -> r.copyBoundFraction() != null);
        StringBuilder md = new StringBuilder();
        md.append("### Second view, OSU's method: each rank's mean latency (us) over back-to-back calls, ")
                .append(c.layout())
                .append(": ")
                .append(c.ranks())
                .append(" ranks on ")
                .append(c.nodes().length)
                .append(c.nodes().length == 1 ? " node " : " nodes ")
                .append(Arrays.toString(c.nodes()))
                .append(", median of ")
                .append(c.rounds())
                .append(c.rounds() == 1 ? " round" : " rounds")
                .append("\n\n");
        List<String> header = new ArrayList<>(List.of("size"));
        c.columns().forEach(col -> header.add(col.name()));
        header.add("best native");
        header.add("best native / auto");
        boolean aa = hasColumn(c, AA_OWN) && hasColumn(c, AA_OTHER);
        if (aa) {
            header.add("A/A " + AA_OWN + " / " + AA_OTHER);
        }
        if (copies) {
            header.add("memcpy GB/s");
        }
        if (bound) {
            header.add("copy bound / auto");
        }
        line(md, header);
        List<String> rule = new ArrayList<>();
        header.forEach(h -> rule.add("---:"));
        line(md, rule);
        for (Comparison.Row row : c.rows()) {
            List<String> cells = new ArrayList<>(List.of(Sizes.format(row.size())));
            c.columns().forEach(col -> cells.add(us(row.latencyUs().get(col.name()))));
            cells.add(row.bestNative() == null ? MISSING : us(row.bestNative()) + " (" + row.bestNativeName() + ")");
            cells.add(row.ratio() == null ? MISSING : String.format(Locale.ROOT, "%.2fx", row.ratio()));
            if (aa) {
                Double own = row.latencyUs().get(AA_OWN);
                Double other = row.latencyUs().get(AA_OTHER);
                cells.add(
                        own == null || other == null || other <= 0
                                ? MISSING
                                : String.format(Locale.ROOT, "%.2fx", own / other));
            }
            if (copies) {
                cells.add(
                        row.memcpyUs() == null
                                ? MISSING
                                : String.format(Locale.ROOT, "%.2f", row.size() / row.memcpyUs() / 1e3));
            }
            if (bound) {
                cells.add(row.copyBoundFraction() == null ? MISSING : LinkBound.percent(row.copyBoundFraction()));
            }
            line(md, cells);
        }
        md.append('\n');
        notes(md, c, bound);
        if (link != null) {
            Map<Long, Map<String, Double>> us = new TreeMap<>();
            c.rows().forEach(r -> us.put(r.size(), r.latencyUs()));
            md.append('\n')
                    .append(link.table(
                            "Fraction of the link bound (OSU-style figures)",
                            c.columns().stream().map(Comparison.Column::name).toList(),
                            us));
        }
        md.append(Goals.render(
                "Goal lines in OSU's method (each rank's mean over back-to-back calls, which overlap; the"
                        + " headline goals are the user-style probe's)",
                Goals.of(c, link)));
        return md.toString();
    }

    /**
     * The A/A floor of this view: Open MPI's default bcast in its own launch ({@code tuned}) against
     * the same in the hbcast launch ({@code native}); a gap under it is noise.
     */
    static final String AA_OWN = "tuned";

    static final String AA_OTHER = "native";

    private static boolean hasColumn(Comparison c, String name) {
        return c.columns().stream().anyMatch(col -> col.name().equals(name));
    }

    private static void notes(StringBuilder md, Comparison c, boolean bound) {
        for (Config config : c.configs()) {
            md.append("- ");
            if (config.openMpi()) {
                md.append('`')
                        .append(config.name())
                        .append("`: Open MPI's own bcast through the Java bindings, ")
                        .append(config.mca().isEmpty() ? "default MCA parameters" : "`" + config.mca() + "`");
                if (config.unavailable() != null) {
                    md.append("; **not measured**: ").append(config.unavailable());
                } else if (config.selected() != null) {
                    md.append("; ").append(config.selected());
                }
            } else {
                md.append("hbcast run (")
                        .append(config.mca().isEmpty() ? "default MCA parameters" : "`" + config.mca() + "`")
                        .append("): ");
                List<String> ours = c.columns().stream()
                        .filter(col -> col.config().equals(config.name()))
                        .map(col -> "`" + col.name() + "`")
                        .toList();
                md.append(String.join(", ", ours))
                        .append(" measured side by side on the same buffers, interleaved;")
                        .append(
                                " `native` there is Open MPI's default bcast (a same-run reference, not in best native)");
            }
            md.append('\n');
        }
        md.append(
                "- best native: the fastest Open MPI column at that size; best native / auto above 1 means auto is faster\n");
        if (hasColumn(c, AA_OWN) && hasColumn(c, AA_OTHER)) {
            md.append("- A/A: Open MPI's default bcast in its own launch (`" + AA_OWN + "`) over the same in the"
                    + " hbcast launch (`" + AA_OTHER + "`): how far apart one algorithm's figures fall in this view;"
                    + " a best native / auto within it of 1 is noise\n");
        }
        if (bound) {
            md.append("- copy bound / auto (from ")
                    .append(Sizes.format(ComparisonMerge.COPY_BOUND_FROM))
                    .append("): (ranks - 1) x size at the memcpy bandwidth rank 0 measured in the hbcast run,")
                    .append(" divided by auto's latency\n");
        }
    }

    private static String us(Double value) {
        return value == null ? MISSING : String.format(Locale.ROOT, "%.2f", value);
    }

    private static void line(StringBuilder md, List<String> cells) {
        md.append("| ").append(String.join(" | ", cells)).append(" |\n");
    }
}
