package org.hbcast.bench.tune;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.StringJoiner;
import java.util.stream.IntStream;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.BcastPlan;
import org.hbcast.HierarchicalBcast;
import org.hbcast.plan.Algorithm;
import org.hbcast.select.Explanation;
import org.hbcast.tuning.TuningTable;

/**
 * The selector's acceptance check, side by side in one run: per message size, the sweep's best
 * point, {@code auto} with the tuning table and {@code auto} with the cost model alone, measured
 * interleaved, with the ratios to the best (median of the ratios of neighbouring runs) and the
 * targets (table within 10%, model within 25%). A choice that is the best point's configuration is
 * that configuration's time: timing one configuration twice would only measure the spread between
 * its runs.
 *
 * <p>The runs of a size are spread over several passes through all the sizes, so that they meet
 * the machine at several moments of the check: with more ranks than cores the machine has spells
 * of seconds in which plans run up to three times slower, and not alike, and a size timed in one
 * stretch a tenth of a second long is judged by the one spell it met. Each pass's ratio is printed
 * as well, so the spread between spells stays in view.
 */
final class SelectorCheck {
    static final double TABLE_TARGET = 1.10;
    static final double MODEL_TARGET = 1.25;

    /** Passes through the sizes when {@code --check-passes} is not given (fewer where there are fewer runs). */
    static final int DEFAULT_PASSES = 5;

    private static final int BEST = 0;
    private static final int TABLE = 1;
    private static final int MODEL = 2;

    private final Intracomm world;
    private final BcastOptions auto;
    private final Path table;
    private final ByteBuffer buf;
    private final BcastClock clock;
    private final int runs;
    private final int passes;

    /**
     * @param runs   interleaved runs per size in all
     * @param passes passes through the sizes that share those runs (1..{@code runs}, as the tuner checks)
     */
    SelectorCheck(
            Intracomm world, BcastOptions base, Path table, ByteBuffer buf, BcastClock clock, int runs, int passes) {
        this.world = world;
        this.auto = base.withAlgorithm(BcastOptions.Algorithm.AUTO)
                .withChunkBytes(0)
                .withRadix(0);
        this.table = table;
        this.buf = buf;
        this.clock = clock;
        this.runs = runs;
        this.passes = passes;
    }

    void run(List<TuningTable.Entry> entries) throws MPIException {
        boolean root = world.getRank() == 0;
        // [size][variant][run]; a variant timed by another (measuredBy) keeps no runs of its own.
        double[][][] times = new double[entries.size()][3][runs];
        int[][] measuredBy = new int[entries.size()][];
        String[][] names = new String[entries.size()][];
        // The selector as it stands: no trials in the run, which would change the plans while they are timed.
        try (HierarchicalBcast tabled = HierarchicalBcast.create(
                        world, auto.withTuningFile(table).withTrials(false));
                HierarchicalBcast modelled = HierarchicalBcast.create(
                        world, auto.withTuningFile(Path.of("none")).withTrials(false))) {
            int done = 0;
            for (int pass = 0; pass < passes; pass++) {
                int count = runsInPass(runs, passes, pass);
                if (root) {
                    System.out.printf(
                            Locale.ROOT,
                            "# selector check: pass %d of %d, %d interleaved runs per size%n",
                            pass + 1,
                            passes,
                            count);
                    System.out.flush();
                }
                for (int s = 0; s < entries.size(); s++) {
                    int m = (int) entries.get(s).bytes();
                    // Built again each pass: eleven best points held open at once would hold eleven sets of rings.
                    try (HierarchicalBcast best = HierarchicalBcast.create(world, fixed(entries.get(s)))) {
                        HierarchicalBcast[] variants = {best, tabled, modelled};
                        if (measuredBy[s] == null) {
                            measuredBy[s] = distinct(variants, m);
                            names[s] = new String[] {
                                describe(best.plan(m)),
                                same(tabled, measuredBy[s][TABLE], m),
                                same(modelled, measuredBy[s][MODEL], m)
                            };
                        }
                        measure(variants, measuredBy[s], m, count, done, times[s]);
                    }
                }
                done += count;
            }
        }
        if (root) {
            report(entries, times, measuredBy, names);
        }
    }

    private void report(List<TuningTable.Entry> entries, double[][][] times, int[][] measuredBy, String[][] names) {
        System.out.println("# selector check: best point of the sweep vs auto with the table vs auto with the model"
                + " alone; median of " + runs + " interleaved runs in " + passes + " passes through the sizes,"
                + " ratios the median of the runs' ratios (each pass's own after the verdict); targets table/best <= "
                + TABLE_TARGET + ", model/best <= " + MODEL_TARGET);
        System.out.printf(
                Locale.ROOT,
                "%-10s %-30s %11s %-30s %11s %7s %-30s %11s %7s  %-30s %s%n",
                "# size",
                "best",
                "us",
                "table choice",
                "us",
                "ratio",
                "model choice",
                "us",
                "ratio",
                "verdict",
                "model by pass");
        int tableMisses = 0;
        int modelMisses = 0;
        for (int s = 0; s < entries.size(); s++) {
            double[] best = times[s][BEST];
            double[] tabled = times[s][measuredBy[s][TABLE]];
            double[] modelled = times[s][measuredBy[s][MODEL]];
            double tableRatio = pairedRatio(tabled, best);
            double modelRatio = pairedRatio(modelled, best);
            boolean tableOk = tableRatio <= TABLE_TARGET;
            boolean modelOk = modelRatio <= MODEL_TARGET;
            tableMisses += tableOk ? 0 : 1;
            modelMisses += modelOk ? 0 : 1;
            System.out.printf(
                    Locale.ROOT,
                    "%-10d %-30s %11.1f %-30s %11.1f %7.3f %-30s %11.1f %7.3f  %-30s %s%n",
                    entries.get(s).bytes(),
                    names[s][BEST],
                    BcastClock.median(best) * 1e6,
                    names[s][TABLE],
                    BcastClock.median(tabled) * 1e6,
                    tableRatio,
                    names[s][MODEL],
                    BcastClock.median(modelled) * 1e6,
                    modelRatio,
                    (tableOk ? "table ok" : "TABLE MISS") + ", " + (modelOk ? "model ok" : "MODEL MISS"),
                    byPass(modelled, best, passes));
        }
        System.out.println("# " + entries.size() + " sizes: table choice missed its target at " + tableMisses
                + ", model choice at " + modelMisses);
        System.out.flush();
    }

    /** The sweep's best point as options: its algorithm, chunk, radix and transport, no table. */
    private BcastOptions fixed(TuningTable.Entry e) {
        BcastOptions o = e.algorithm() == Algorithm.NATIVE
                ? auto.withAlgorithm(BcastOptions.Algorithm.NATIVE)
                : auto.withAlgorithm(
                                BcastOptions.Algorithm.valueOf(e.algorithm().name()))
                        .withChunkBytes(e.chunkBytes())
                        .withRadix(e.radix())
                        .withIntra(BcastOptions.IntraNode.valueOf(e.intra().name()));
        return o.withTuningFile(Path.of("none"));
    }

    /** Runs of pass {@code pass} of {@code passes} that share {@code runs}: the first passes take the remainder. */
    static int runsInPass(int runs, int passes, int pass) {
        return runs / passes + (pass < runs % passes ? 1 : 0);
    }

    /** Each of {@code passes} passes' paired ratio ({@link #pairedRatio}), in their order, runs split by {@link #runsInPass}. */
    static String byPass(double[] variant, double[] best, int passes) {
        StringJoiner j = new StringJoiner(" ");
        int from = 0;
        for (int pass = 0; pass < passes; pass++) {
            int to = from + runsInPass(variant.length, passes, pass);
            j.add(String.format(
                    Locale.ROOT,
                    "%.2f",
                    pairedRatio(Arrays.copyOfRange(variant, from, to), Arrays.copyOfRange(best, from, to))));
            from = to;
        }
        return j.toString();
    }

    /**
     * For each variant, the first variant with the same plan at {@code m}: a configuration is timed
     * once, so a choice that is the best point is the best point's time, not a second sample of it.
     */
    private static int[] distinct(HierarchicalBcast[] variants, int m) {
        int[] by = new int[variants.length];
        for (int v = 0; v < variants.length; v++) {
            by[v] = v;
            for (int u = 0; u < v; u++) {
                if (describe(variants[u].plan(m)).equals(describe(variants[v].plan(m)))) {
                    by[v] = by[u];
                    break;
                }
            }
        }
        return by;
    }

    /**
     * {@code count} runs of every distinct variant, interleaved with the order rotating from run to run
     * ({@link BcastClock#interleaved}) and on across passes, stored from run {@code from} of
     * {@code times[variant]}.
     */
    private void measure(HierarchicalBcast[] variants, int[] measuredBy, int m, int count, int from, double[][] times)
            throws MPIException {
        int[] timed = IntStream.range(0, variants.length)
                .filter(v -> measuredBy[v] == v)
                .toArray();
        BcastClock.Call[] calls = new BcastClock.Call[timed.length];
        for (int i = 0; i < timed.length; i++) {
            HierarchicalBcast hb = variants[timed[i]];
            calls[i] = () -> hb.bcast(buf, m, MPI.BYTE, 0);
        }
        double[][] measured = clock.interleaved(calls, count, from);
        for (int i = 0; i < timed.length; i++) {
            System.arraycopy(measured[i], 0, times[timed[i]], from, count);
        }
    }

    /**
     * The median over repeats of {@code runs[r] / best[r]}: each ratio compares two runs made one
     * after the other, so a slow spell of the machine, which lasts longer than a run, slows both and
     * cancels out instead of landing on one side of a ratio of medians.
     */
    static double pairedRatio(double[] runs, double[] best) {
        double[] ratios = new double[runs.length];
        for (int r = 0; r < runs.length; r++) {
            ratios[r] = runs[r] / best[r];
        }
        return BcastClock.median(ratios);
    }

    /** The variant's plan, or "= best" when it is the best point's configuration. */
    private static String same(HierarchicalBcast variant, int measuredBy, int m) {
        return measuredBy == 0 ? "(= best)" : describe(variant.plan(m));
    }

    private static String describe(BcastPlan p) {
        return p.algorithm().equals("native")
                ? "native"
                : (p.hierarchical() ? p.algorithm() + "/" + p.intra() : p.algorithm()) + "/"
                        + Explanation.size(p.chunkBytes()).replace(" ", "") + "/k" + p.radix();
    }
}
