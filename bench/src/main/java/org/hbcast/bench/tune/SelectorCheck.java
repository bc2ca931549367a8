package org.hbcast.bench.tune;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.Algorithm;
import org.hbcast.BcastOptions;
import org.hbcast.Explanation;
import org.hbcast.HierarchicalBcast;
import org.hbcast.Plan;
import org.hbcast.tuning.TuningTable;

/**
 * The selector's acceptance check, side by side in one run: per message size, the sweep's best
 * point, {@code auto} with the tuning table and {@code auto} with the cost model alone, measured
 * interleaved (median of repeats), with the ratios to the best (median of the ratios of neighbouring
 * runs) and the targets (table within 10%, model within 25%). A choice that is the best point's
 * configuration is that configuration's time: timing one configuration twice would only measure the
 * spread between its runs.
 */
final class SelectorCheck {
    static final double TABLE_TARGET = 1.10;
    static final double MODEL_TARGET = 1.25;

    private final Intracomm world;
    private final BcastOptions auto;
    private final Path table;
    private final ByteBuffer buf;
    private final BcastClock clock;
    private final int repeat;

    SelectorCheck(Intracomm world, BcastOptions base, Path table, ByteBuffer buf, BcastClock clock, int repeat) {
        this.world = world;
        this.auto = base.withAlgorithm(Algorithm.AUTO).withChunkBytes(0).withRadix(0);
        this.table = table;
        this.buf = buf;
        this.clock = clock;
        this.repeat = repeat;
    }

    void run(List<TuningTable.Entry> entries) throws MPIException {
        boolean root = world.getRank() == 0;
        int tableMisses = 0;
        int modelMisses = 0;
        try (HierarchicalBcast tabled = HierarchicalBcast.create(world, auto.withTuningFile(table));
             HierarchicalBcast modelled = HierarchicalBcast.create(world, auto.withTuningFile(Path.of("none")))) {
            if (root) {
                System.out.println("# selector check: best point of the sweep vs auto with the table vs auto with the model"
                        + " alone; median of " + repeat + " interleaved runs, ratios the median of the runs' ratios;"
                        + " targets table/best <= " + TABLE_TARGET
                        + ", model/best <= " + MODEL_TARGET);
                System.out.printf(Locale.ROOT, "%-10s %-30s %11s %-30s %11s %7s %-30s %11s %7s  %s%n", "# size", "best",
                        "us", "table choice", "us", "ratio", "model choice", "us", "ratio", "verdict");
            }
            for (TuningTable.Entry e : entries) {
                int m = (int) e.bytes();
                BcastOptions fixed = e.algorithm() == Algorithm.NATIVE ? auto.withAlgorithm(Algorithm.NATIVE)
                        : auto.withAlgorithm(e.algorithm()).withChunkBytes(e.chunkBytes()).withRadix(e.radix())
                                .withIntra(e.intra());
                try (HierarchicalBcast best = HierarchicalBcast.create(world, fixed.withTuningFile(Path.of("none")))) {
                    HierarchicalBcast[] variants = {best, tabled, modelled};
                    int[] measuredBy = distinct(variants, m);
                    double[][] runs = measure(variants, measuredBy, m);
                    double tBest = BcastClock.median(runs[0]);
                    double tTable = BcastClock.median(runs[measuredBy[1]]);
                    double tModel = BcastClock.median(runs[measuredBy[2]]);
                    double tableRatio = pairedRatio(runs[measuredBy[1]], runs[0]);
                    double modelRatio = pairedRatio(runs[measuredBy[2]], runs[0]);
                    boolean tableOk = tableRatio <= TABLE_TARGET;
                    boolean modelOk = modelRatio <= MODEL_TARGET;
                    tableMisses += tableOk ? 0 : 1;
                    modelMisses += modelOk ? 0 : 1;
                    if (root) {
                        System.out.printf(Locale.ROOT, "%-10d %-30s %11.1f %-30s %11.1f %7.3f %-30s %11.1f %7.3f  %s%n", m,
                                describe(best.plan(m)), tBest * 1e6, same(tabled, measuredBy[1], m), tTable * 1e6,
                                tableRatio, same(modelled, measuredBy[2], m), tModel * 1e6, modelRatio,
                                (tableOk ? "table ok" : "TABLE MISS") + ", " + (modelOk ? "model ok" : "MODEL MISS"));
                        System.out.flush();
                    }
                }
            }
        }
        if (root) {
            System.out.println("# " + entries.size() + " sizes: table choice missed its target at " + tableMisses
                    + ", model choice at " + modelMisses);
        }
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
     * Runs of every distinct variant, interleaved with the order rotating from run to run
     * ({@link BcastClock#interleaved}); a variant timed by another ({@code measuredBy}) gets no runs.
     */
    private double[][] measure(HierarchicalBcast[] variants, int[] measuredBy, int m) throws MPIException {
        int[] timed = IntStream.range(0, variants.length).filter(v -> measuredBy[v] == v).toArray();
        BcastClock.Call[] calls = new BcastClock.Call[timed.length];
        for (int i = 0; i < timed.length; i++) {
            HierarchicalBcast hb = variants[timed[i]];
            calls[i] = () -> hb.bcast(buf, m, MPI.BYTE, 0);
        }
        double[][] measured = clock.interleaved(calls, repeat);
        double[][] runs = new double[variants.length][];
        for (int i = 0; i < timed.length; i++) {
            runs[timed[i]] = measured[i];
        }
        return runs;
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

    private static String describe(Plan p) {
        return p.algorithm() == Algorithm.NATIVE ? "native"
                : Explanation.name(p.algorithm(), p.intra()) + "/" + Explanation.size(p.chunkBytes()).replace(" ", "")
                        + "/k" + p.radix();
    }

}
