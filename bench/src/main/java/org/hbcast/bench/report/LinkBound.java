package org.hbcast.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The link bound of a multi-host layout, as {@code LinkProbe --json} measured it: no broadcast can
 * bring {@code size} bytes to another host in less than {@code size / bytesPerSecond}. Renders, for
 * every implementation, the fraction of that bound it reached.
 *
 * @param from           the sending host
 * @param to             the receiving host
 * @param bytesPerSecond the streamed point-to-point bandwidth
 * @param latencyUs      the one-way latency of a 1-byte message
 * @param relayHosts     the hosts of the probe's relay, every link busy at once (0: not measured)
 * @param relayBytesPerSecond the rate each link carried in that relay (NaN: not measured)
 */
public record LinkBound(
        String from, String to, double bytesPerSecond, double latencyUs, int relayHosts, double relayBytesPerSecond) {
    /** Below this size latency dominates and the fraction says nothing about the link. */
    public static final long FROM_BYTES = 64 << 10;

    public LinkBound {
        if (!(bytesPerSecond > 0)) {
            throw new IllegalArgumentException("a link bound needs a positive bandwidth, got " + bytesPerSecond);
        }
    }

    public LinkBound(String from, String to, double bytesPerSecond, double latencyUs) {
        this(from, to, bytesPerSecond, latencyUs, 0, Double.NaN);
    }

    public static LinkBound read(Path file) throws IOException {
        JsonNode doc = new ObjectMapper().readTree(file.toFile());
        JsonNode bw = doc.get("bytesPerSecond");
        if (bw == null || !bw.isNumber()) {
            throw new IOException(file + " has no bytesPerSecond (expected LinkProbe --json output)");
        }
        return new LinkBound(
                doc.path("from").asText("?"),
                doc.path("to").asText("?"),
                bw.asDouble(),
                doc.path("latencyUs").asDouble(Double.NaN),
                doc.path("relayHosts").asInt(0),
                doc.path("relayBytesPerSecond").asDouble(Double.NaN));
    }

    /**
     * What the relay with every link busy at once says of the bed, or an empty string where it was not
     * measured: when it falls short of the two-host rate, a guide to what the bed leaves a schedule
     * that uses every link at once (hbcast's plans ran above it on the round-robin 4x2 bed).
     */
    public String relayNote() {
        if (relayHosts < 3 || !(relayBytesPerSecond > 0)) {
            return "";
        }
        double share = relayBytesPerSecond / bytesPerSecond;
        return String.format(
                Locale.ROOT,
                "With every link busy at once (the first ranks of all %d hosts relaying a stream down a chain,"
                        + " Open MPI's point-to-point calls only), each link carried %.1f MB/s, %.0f%% of the"
                        + " two-host figure%s.%n%n",
                relayHosts,
                relayBytesPerSecond / 1e6,
                100 * share,
                share < 0.95
                        ? ": a guide to what this bed's shared cores and kernel leave a schedule that keeps every"
                                + " link busy, not a ceiling (the relay's messages wait for the receiving rank to"
                                + " come back to MPI, and a schedule that keeps its ranks there sooner can run above it)"
                        : "");
    }

    /** The bound's time for {@code size} bytes, in microseconds. */
    public double boundUs(long size) {
        return size / bytesPerSecond * 1e6;
    }

    /** (size / bandwidth) / time: 1 is the link's full rate. */
    public double fraction(long size, double us) {
        return boundUs(size) / us;
    }

    /**
     * A fraction of a bound as a cell: above 1 no complete broadcast can be, so such a cell says it is
     * overlapped throughput (back-to-back calls timed together).
     */
    static String percent(double fraction) {
        String cell = String.format(Locale.ROOT, "%.0f%%", 100 * fraction);
        return fraction > 1 ? cell + " (overlapped)" : cell;
    }

    /**
     * A markdown table of the fraction of the bound each column reached, from {@link #FROM_BYTES}.
     *
     * @param usBySize per size, the time in microseconds of each column (absent: not measured)
     */
    public String table(String title, List<String> columns, Map<Long, Map<String, Double>> usBySize) {
        StringBuilder md = new StringBuilder();
        md.append(String.format(
                Locale.ROOT,
                "%s: the link bound is size / %.1f MB/s (%.3f Gbit/s, %s to %s, measured by `LinkProbe` in this"
                        + " run, latency %.1f us); each cell is (size / bandwidth) / time, 100%% is the link's full"
                        + " rate and no broadcast can exceed it.%n%n",
                title,
                bytesPerSecond / 1e6,
                bytesPerSecond * 8 / 1e9,
                from,
                to,
                latencyUs));
        md.append(relayNote());
        List<String> header = new ArrayList<>(List.of("size", "bound (us)"));
        header.addAll(columns);
        md.append("| ").append(String.join(" | ", header)).append(" |\n");
        md.append("|").append("---:|".repeat(header.size())).append('\n');
        usBySize.forEach((size, us) -> {
            if (size < FROM_BYTES) {
                return;
            }
            md.append("| ").append(Sizes.format(size)).append(" | ");
            md.append(String.format(Locale.ROOT, "%.1f", boundUs(size)));
            for (String c : columns) {
                Double t = us.get(c);
                md.append(" | ").append(t == null ? MarkdownReport.MISSING : percent(fraction(size, t)));
            }
            md.append(" |\n");
        });
        return md.append('\n').toString();
    }
}
