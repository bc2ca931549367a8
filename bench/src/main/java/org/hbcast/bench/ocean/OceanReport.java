package org.hbcast.bench.ocean;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.hbcast.bench.report.LinkBound;

/**
 * The ocean benchmark's report: per implementation the median run (by total time) of its repeats,
 * the speedup of each implementation over the first one, the final-state checksums and whether
 * every run ended bit-identical. Text on a stream, optionally JSON.
 */
public final class OceanReport {
    private final OceanSettings settings;
    private final int ranks;
    private final String nodes;
    private final Map<String, List<RunResult>> runs = new LinkedHashMap<>();

    public OceanReport(OceanSettings settings, int ranks, String nodes, List<String> impls) {
        this.settings = settings;
        this.ranks = ranks;
        this.nodes = nodes;
        for (String impl : impls) {
            runs.put(impl, new ArrayList<>());
        }
    }

    public void add(String impl, RunResult result) {
        runs.get(impl).add(result);
    }

    /** The run whose total time is the median of the implementation's repeats. */
    public RunResult median(String impl) {
        List<RunResult> sorted = new ArrayList<>(runs.get(impl));
        sorted.sort(Comparator.comparingDouble(RunResult::totalS));
        return sorted.get(sorted.size() / 2);
    }

    /** Every checksum any run ended with. */
    public Set<Long> checksums() {
        Set<Long> all = new LinkedHashSet<>();
        runs.values().forEach(list -> list.forEach(r -> all.add(r.checksum())));
        return all;
    }

    public boolean bitIdentical() {
        return checksums().size() == 1;
    }

    /** Lines printed before the runs start. */
    public void printHeader(PrintStream out) {
        OceanParameters p = settings.physics();
        long bytes = WindField.bytes(settings.nx(), settings.ny());
        out.printf(
                Locale.ROOT,
                "# hbcast ocean model: %d x %d cells of %.3g x %.3g km, dt %.1f s, %d steps%n",
                settings.nx(),
                settings.ny(),
                p.dx() / 1e3,
                p.dy() / 1e3,
                p.dt(),
                settings.steps());
        out.printf(
                Locale.ROOT,
                "# %d ranks in strips of %d-%d rows; nodes %s; I/O rank %d%n",
                ranks,
                settings.ny() / ranks,
                (settings.ny() + ranks - 1) / ranks,
                nodes,
                settings.ioRank());
        out.printf(
                Locale.ROOT,
                "# wind field %.2f MiB broadcast every %d step(s): %d broadcasts per run%n",
                bytes / 1048576.0,
                settings.forcingEvery(),
                (settings.steps() + settings.forcingEvery() - 1) / settings.forcingEvery());
        out.flush();
    }

    public void print(PrintStream out) {
        int repeats = runs.values().iterator().next().size();
        out.printf("# median of %d run(s) per implementation, implementations alternated%n", repeats);
        out.printf(
                "%-21s%11s%11s%8s%11s%11s%10s%19s%n",
                "# impl", "total(s)", "bcast(s)", "bcast%", "halo(s)", "wind(s)", "steps/s", "checksum");
        for (String impl : runs.keySet()) {
            RunResult r = median(impl);
            out.printf(
                    Locale.ROOT,
                    "%-21s%11.3f%11.3f%8.1f%11.3f%11.3f%10.2f%19s%n",
                    impl,
                    r.totalS(),
                    r.bcastS(),
                    100 * r.bcastShare(),
                    r.haloS(),
                    r.windS(),
                    r.stepsPerSecond(),
                    StateChecksum.hex(r.checksum()));
        }
        List<String> impls = new ArrayList<>(runs.keySet());
        RunResult base = median(impls.get(0));
        for (String impl : impls.subList(1, impls.size())) {
            RunResult r = median(impl);
            out.printf(
                    Locale.ROOT,
                    "# speedup %s vs %s: %.3fx end to end (total time %+.1f%%), %.3fx in broadcast%n",
                    impl,
                    impls.get(0),
                    base.totalS() / r.totalS(),
                    100 * (r.totalS() / base.totalS() - 1),
                    r.bcastS() > 0 ? base.bcastS() / r.bcastS() : Double.NaN);
        }
        if (bitIdentical()) {
            out.printf(
                    "# bit-identical: yes (every run ended in checksum %s)%n",
                    StateChecksum.hex(checksums().iterator().next()));
        } else {
            List<String> hex = new ArrayList<>();
            checksums().forEach(c -> hex.add(StateChecksum.hex(c)));
            out.printf(
                    "# bit-identical: NO (the runs ended in %d different states: %s)%n",
                    hex.size(), String.join(", ", hex));
        }
        out.flush();
    }

    /**
     * How much of its broadcasts an overlapped run hid: (blocking total - overlapped total) over the
     * smaller of the blocking run's broadcast time and its computation time (total less broadcast,
     * halo exchange included); 100% is all of the smaller one hidden.
     */
    public void printHidden(PrintStream out, String blocking, String overlapped) {
        RunResult b = median(blocking);
        RunResult o = median(overlapped);
        double compute = b.totalS() - b.bcastS();
        double hideable = Math.min(b.bcastS(), compute);
        out.printf(
                Locale.ROOT,
                "# overlap %s: broadcast %.3f s, computation %.3f s; total %.3f s blocking, %.3f s overlapped"
                        + " (%.3f s still in broadcast): %.0f%% of min(broadcast, computation) hidden%n",
                blocking,
                b.bcastS(),
                compute,
                b.totalS(),
                o.totalS(),
                o.bcastS(),
                hideable > 0 ? 100 * (b.totalS() - o.totalS()) / hideable : Double.NaN);
        if (runs.get(blocking).size() > 1) {
            // The A/A floor: the same configuration against itself in this run, in hidden-fraction terms.
            out.printf(
                    Locale.ROOT,
                    "# overlap %s A/A: blocking totals spread %.3f s over %d runs (%.0f%% of min(broadcast,"
                            + " computation)), overlapped %.3f s%n",
                    blocking,
                    spread(blocking),
                    runs.get(blocking).size(),
                    hideable > 0 ? 100 * spread(blocking) / hideable : Double.NaN,
                    spread(overlapped));
        }
        out.flush();
    }

    /** Largest less smallest total of an implementation's runs. */
    private double spread(String impl) {
        double min = Double.MAX_VALUE;
        double max = 0;
        for (RunResult r : runs.get(impl)) {
            min = Math.min(min, r.totalS());
            max = Math.max(max, r.totalS());
        }
        return max - min;
    }

    /**
     * Each implementation's broadcast against the link bound: the run's wind fields at the link's rate
     * over the slowest rank's time in broadcast (which includes waiting for the root), so 100% is the
     * link's full rate for every field.
     */
    public void printLinkBound(PrintStream out, LinkBound link) {
        long bytes = WindField.bytes(settings.nx(), settings.ny());
        for (String impl : runs.keySet()) {
            RunResult r = median(impl);
            double boundS = r.broadcasts() * link.boundUs(bytes) / 1e6;
            out.printf(
                    Locale.ROOT,
                    "# link bound %s: %d broadcasts take %.3f s at %.1f MB/s; the slowest rank spent %.3f s in"
                            + " broadcast: %.0f%% of the bound%n",
                    impl,
                    r.broadcasts(),
                    boundS,
                    link.bytesPerSecond() / 1e6,
                    r.bcastMaxS(),
                    100 * boundS / r.bcastMaxS());
        }
        String relay = link.relayNote().strip();
        if (!relay.isEmpty()) {
            out.println("# " + relay);
        }
        out.flush();
    }

    public void writeJson(Path path) throws IOException {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("nx", settings.nx());
        doc.put("ny", settings.ny());
        doc.put("steps", settings.steps());
        doc.put("forcing_every", settings.forcingEvery());
        doc.put("wind_field_bytes", WindField.bytes(settings.nx(), settings.ny()));
        doc.put("ranks", ranks);
        doc.put("nodes", nodes);
        doc.put("io_rank", settings.ioRank());
        doc.put("dt_s", settings.physics().dt());
        Map<String, Object> impls = new LinkedHashMap<>();
        for (Map.Entry<String, List<RunResult>> e : runs.entrySet()) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("median", row(median(e.getKey())));
            List<Map<String, Object>> all = new ArrayList<>();
            e.getValue().forEach(r -> all.add(row(r)));
            entry.put("runs", all);
            impls.put(e.getKey(), entry);
        }
        doc.put("impls", impls);
        List<String> names = new ArrayList<>(runs.keySet());
        Map<String, Object> speedups = new LinkedHashMap<>();
        for (String impl : names.subList(1, names.size())) {
            speedups.put(
                    impl + "_vs_" + names.get(0),
                    median(names.get(0)).totalS() / median(impl).totalS());
        }
        doc.put("speedup", speedups);
        doc.put("bit_identical", bitIdentical());
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), doc);
    }

    private static Map<String, Object> row(RunResult r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("total_s", r.totalS());
        m.put("bcast_s", r.bcastS());
        m.put("bcast_max_s", r.bcastMaxS());
        m.put("bcast_share", r.bcastShare());
        m.put("halo_s", r.haloS());
        m.put("wind_s", r.windS());
        m.put("steps_per_s", r.stepsPerSecond());
        m.put("broadcasts", r.broadcasts());
        m.put("checksum", StateChecksum.hex(r.checksum()));
        return m;
    }
}
