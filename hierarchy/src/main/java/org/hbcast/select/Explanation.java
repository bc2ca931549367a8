package org.hbcast.select;

import java.util.List;
import java.util.Locale;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.schedule.TreeShape;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.CostModel;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.NodeCurve;
import org.hbcast.tuning.TuningInputs;
import org.hbcast.tuning.TuningTable;

/**
 * Why a call of a given size runs the plan it runs: the plan and its reason, the time the model
 * predicts and the table measured, the model's best per algorithm, the table's measurements nearby,
 * and the inputs (fingerprint, calibration, warnings). {@link #text()} is what {@code explain} prints.
 *
 * @param measuredSeconds the table's time interpolated at this size, NaN without a table
 * @param alternatives the model's best choice of each algorithm (and intra-node transport) at this size
 * @param nearby the table entries at or around this size
 * @param staging for device memory, the staging candidate's terms and why it won or lost; null for host memory
 */
public record Explanation(
        long bytes,
        MemoryKind memory,
        ClusterShape shape,
        Plan plan,
        double predictedSeconds,
        double measuredSeconds,
        List<CostModel.Choice> alternatives,
        List<TuningTable.Entry> nearby,
        TuningInputs inputs,
        String staging) {

    public String text() {
        StringBuilder sb = new StringBuilder();
        line(sb, "message:     %d B (%s), %s memory, layout %s", bytes, size(bytes), memory, shape);
        line(
                sb,
                "fingerprint: %s (id %s)",
                inputs.fingerprint().canonical(),
                inputs.fingerprint().id());
        line(sb, "chosen:      %s, chunk %s, radix %d", name(plan), size(plan.chunkBytes()), plan.radix());
        line(sb, "why:         %s", plan.reason());
        if (plan.algorithm() == Algorithm.HIERARCHICAL && shape.nodes() > 2) {
            line(sb, "leaders:     %s", leaders(plan, shape.nodes(), "node leaders"));
        }
        if (plan.algorithm() == Algorithm.KNOMIAL && shape.ranks() > 2) {
            line(sb, "tree:        %s", leaders(plan, shape.ranks(), "ranks"));
        }
        if (bytes > 1 && Long.bitCount(bytes) != 1) {
            long low = Long.highestOneBit(bytes);
            line(
                    sb,
                    "             (plans are made per size bucket: this size runs the plan of [%s, %s))",
                    size(low),
                    size(low * 2));
        }
        line(
                sb,
                "predicted:   %s (cost model)%s",
                time(predictedSeconds),
                Double.isNaN(measuredSeconds) ? "" : "; measured " + time(measuredSeconds) + " (tuning table)");
        if (staging != null) {
            line(sb, "staging:     %s", staging);
        }
        sb.append("model's best per algorithm:\n");
        for (CostModel.Choice c : alternatives) {
            if (c.algorithm() == Algorithm.NATIVE) {
                line(
                        sb,
                        "  %-20s %-24s %s",
                        c.algorithm(),
                        memory == MemoryKind.DEVICE ? "(staged through the host)" : "(cuts its own segments)",
                        time(c.seconds()));
            } else {
                line(
                        sb,
                        "  %-20s chunk %-9s radix %d  %s",
                        name(c.algorithm(), c.intra(), c.inter()),
                        size(c.chunkBytes()),
                        c.radix(),
                        time(c.seconds()));
            }
        }
        for (TuningTable.Entry e : nearby) {
            line(
                    sb,
                    "table at %s: best %s, chunk %s, radix %d, %s (%d points measured)",
                    size(e.bytes()),
                    name(e.algorithm(), e.intra(), e.inter()),
                    size(e.chunkBytes()),
                    e.radix(),
                    time(e.seconds()),
                    e.points().size());
        }
        sb.append("links (").append(inputs.calibrationSource()).append("):\n");
        for (LinkKind k : LinkKind.values()) {
            LinkCalibration l = inputs.calibration().link(k);
            line(
                    sb,
                    "  %-17s ts %8.2f us  b %7.2f GB/s  (%s%s)",
                    k.id(),
                    l.startupSeconds() * 1e6,
                    l.bytesPerSecond() / 1e9,
                    l.source(),
                    l.transfers().isEmpty()
                            ? ""
                            : "; transfers from a curve of " + l.transfers().size() + " sizes, "
                                    + size(l.transfers().get(0).bytes()) + " to "
                                    + size(l.transfers()
                                            .get(l.transfers().size() - 1)
                                            .bytes()));
        }
        Calibration cal = inputs.calibration();
        for (NodeCurve c : cal.nodeCurves()) {
            line(
                    sb,
                    "  node curve of the %s on %d ranks: %s%s",
                    c.transport(),
                    c.nodeSize(),
                    chunkRange(c),
                    c.nodeSize() == shape.maxNodeSize() ? " (this layout's nodes)" : "");
        }
        String use = cal.twoLevelMeasuredOn(shape)
                ? " (this layout: the hierarchy's figures)"
                : " (another layout: the levels are composed here)";
        for (NodeCurve c : cal.twoLevelCurves()) {
            line(
                    sb,
                    "  two-level curve with the %s on %s: %s%s",
                    c.transport(),
                    cal.twoLevelLayout(),
                    chunkRange(c),
                    use);
        }
        for (String w : inputs.warnings()) {
            sb.append(w).append('\n');
        }
        return sb.toString();
    }

    private static String chunkRange(NodeCurve c) {
        return c.chunks().size() + " chunk sizes, " + size(c.chunks().get(0).chunkBytes()) + " to "
                + size(c.chunks().get(c.chunks().size() - 1).chunkBytes());
    }

    /**
     * Why the leaders' schedule suits the message: how many sends one chunk takes to reach the last
     * leader (latency) and how often the busiest leader's link carries each chunk (bandwidth), beside
     * the k-nomial tree's. Allocates: for explanations only.
     */
    static String leaders(Plan plan, int nodes, String participants) {
        TreeShape s = plan.inter();
        TreeShape k = TreeShape.KNOMIAL;
        return String.format(
                Locale.ROOT,
                "%s among %d %s: the first chunk reaches the last after %d sends, the busiest one's link"
                        + " carries each chunk %.1f times (k-nomial radix %d: %d sends, %.1f times)",
                s,
                nodes,
                participants,
                s.fillSends(nodes, plan.radix()),
                s.busiestSendsPerChunk(nodes, plan.radix()),
                plan.radix(),
                k.fillSends(nodes, plan.radix()),
                k.busiestSendsPerChunk(nodes, plan.radix()));
    }

    /** "hierarchical/fanout" for the hierarchy (its transport inside nodes matters), the algorithm alone otherwise. */
    public static String name(Algorithm algorithm, IntraNode intra) {
        return name(algorithm, intra, TreeShape.KNOMIAL);
    }

    /**
     * As {@link #name(Algorithm, IntraNode)}, with the leaders' schedule where it is not the k-nomial
     * tree: "hierarchical/ring/chain".
     */
    public static String name(Algorithm algorithm, IntraNode intra, TreeShape inter) {
        if (algorithm == Algorithm.KNOMIAL) {
            return inter == TreeShape.KNOMIAL ? algorithm.toString() : algorithm + "/" + inter;
        }
        if (algorithm != Algorithm.HIERARCHICAL) {
            return algorithm.toString();
        }
        return inter == TreeShape.KNOMIAL ? algorithm + "/" + intra : algorithm + "/" + intra + "/" + inter;
    }

    /** The name of {@code plan}'s algorithm, transport and leaders' schedule. */
    public static String name(Plan plan) {
        return name(plan.algorithm(), plan.intra(), plan.inter());
    }

    private static void line(StringBuilder sb, String format, Object... args) {
        sb.append(String.format(Locale.ROOT, format, args)).append('\n');
    }

    /** "16 MiB", "64 KiB", "1000 B". */
    public static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return bytes / (1 << 20) + " MiB";
        }
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) {
            return bytes / (1 << 10) + " KiB";
        }
        return bytes + " B";
    }

    /** Seconds as "12.3 us" or "4.56 ms". */
    public static String time(double seconds) {
        if (Double.isNaN(seconds)) {
            return "n/a";
        }
        if (Double.isInfinite(seconds)) {
            return "impossible";
        }
        return seconds < 1e-3
                ? String.format(Locale.ROOT, "%.1f us", seconds * 1e6)
                : String.format(Locale.ROOT, "%.3f ms", seconds * 1e3);
    }
}
