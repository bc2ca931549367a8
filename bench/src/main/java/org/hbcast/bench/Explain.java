package org.hbcast.bench;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.hbcast.BcastOptions;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.plan.PlanChoices;
import org.hbcast.select.Explanation;
import org.hbcast.select.Selector;
import org.hbcast.select.TuningAgreement;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.TuningInputs;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code explain}: for a message size and a layout, what the selector chooses and why, with the
 * predicted and (when tuned) measured times. No {@code mpirun} needed: the layout is given, the
 * fingerprint is this host's, the table and calibration are read as a run would read them
 * ({@code HBCAST_TUNING_FILE}, {@code HBCAST_CALIBRATION_FILE}, the cache directory).
 */
@Command(
        name = "explain",
        mixinStandardHelpOptions = true,
        description = "Show the selector's plan for a message size and layout, and why.")
public final class Explain implements Callable<Integer> {
    @Option(
            names = "--bytes",
            required = true,
            description = "message size (16M) or range MIN:MAX of powers of two (one line each)")
    String bytes;

    @ArgGroup(exclusive = true)
    Layout layout = new Layout();

    static final class Layout {
        @Option(names = "--layout", description = "NODESxRANKS, e.g. 2x2 (default 1x4)")
        String grid;

        @Option(names = "--nodes", description = "ranks of each node, e.g. 8,3,3")
        String nodes;
    }

    @Option(names = "--virtual", description = "the nodes are virtual (HBCAST_NODE_SIZES on one host)")
    boolean virtual;

    @Option(
            names = "--table",
            description = "tuning table, or none (default: HBCAST_TUNING_FILE, else the cache place)")
    Path table;

    @Option(
            names = "--calibration",
            description = "calibration file (default: HBCAST_CALIBRATION_FILE, else the cache place)")
    Path calibration;

    @Option(names = "--memory", description = "host or device (default ${DEFAULT-VALUE})")
    String memory = "host";

    public static void main(String[] args) {
        System.exit(new CommandLine(new Explain()).execute(args));
    }

    @Override
    public Integer call() {
        String text = layout.nodes != null ? layout.nodes : layout.grid != null ? layout.grid : "1x4";
        ClusterShape shape = ClusterShape.parse(text + (virtual ? " virtual" : ""));
        MemoryKind kind = MemoryKind.parse(memory);
        Map<String, String> env = new HashMap<>(System.getenv());
        if (calibration != null) {
            env.put("HBCAST_CALIBRATION_FILE", calibration.toString());
        }
        BcastOptions options = BcastOptions.fromEnvironment(env);
        if (table != null) {
            options = options.withTuningFile(table);
        }
        TuningInputs inputs =
                TuningAgreement.local(OpenMpi.library(), options.tuningFile(), options.keepsLearnt(), shape, env);
        Selector selector = new Selector(
                PlanChoices.of(options.asEnvironment()),
                shape,
                options.chunkBytes() != 0 ? options.chunkBytes() : Selector.AUTO_MAX_CHUNK_BYTES,
                inputs);
        List<Long> sizes = bytes.contains(":") ? ByteSizes.powersOfTwo(bytes) : List.of(ByteSizes.parse(bytes));
        if (sizes.size() == 1) {
            System.out.print(selector.explain(sizes.get(0), kind).text());
            return 0;
        }
        System.out.printf(
                Locale.ROOT,
                "# layout %s, %s memory, fingerprint %s%n",
                shape,
                kind,
                inputs.fingerprint().id());
        System.out.printf(
                Locale.ROOT,
                "%-12s %-13s %-9s %-5s %12s %12s  %s%n",
                "# size",
                "algorithm",
                "chunk",
                "radix",
                "predicted",
                "measured",
                "why");
        for (long m : sizes) {
            Explanation e = selector.explain(m, kind);
            Plan p = e.plan();
            System.out.printf(
                    Locale.ROOT,
                    "%-12s %-13s %-9s %-5d %12s %12s  %s%n",
                    Explanation.size(m),
                    p.algorithm(),
                    Explanation.size(p.chunkBytes()),
                    p.radix(),
                    Explanation.time(e.predictedSeconds()),
                    Explanation.time(e.measuredSeconds()),
                    p.reason());
        }
        inputs.warnings().forEach(System.out::println);
        return 0;
    }
}
