package org.hbcast.bench.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.hbcast.bench.experiment.GpuLeasePlan;
import org.hbcast.bench.launch.GpuLeaseRun;
import org.hbcast.bench.launch.Repository;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gpu-lease} (the bundle's {@code bin/gpu-lease}): the checks a short lease of a GPU machine
 * runs ({@link GpuLeasePlan}), printed or run. It has a main of its own so that the bundle, which
 * leaves the plotting libraries out, starts it without the other experiments.
 */
@Command(
        name = "gpu-lease",
        mixinStandardHelpOptions = true,
        usageHelpWidth = 110,
        sortOptions = false,
        description = {
            "Everything a short lease of a GPU machine should run, in one command of about 6 minutes, each step"
                    + " bounded so that one hang cannot eat the lease: 1. the machine (nvidia-smi, topology, OS,"
                    + " cores); 2. bin/gpu-test with HBCAST_REQUIRE_GPU=1 (fails loudly if any GPU test skipped);"
                    + " 3. bin/gpu-bench (ring bandwidth, hierarchical against staged on one node and on 2+2);"
                    + " 4. what a hop costs (IpcMapCost: mapping a peer's buffer, a hop between processes and in"
                    + " one); 5. slots against buffer to buffer at 8-256 MiB (hbcast.device.directMinBytes); 6. where"
                    + " nvidia-cuda-mps-control exists: the ring and hierarchical against staged again under MPS,"
                    + " which lets the ranks sharing a GPU share its context (no switch between them at each hop).",
            "Exit status 1 when a step failed or ran out of time."
        })
public final class GpuLeaseCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Parameters(
            index = "0",
            arity = "0..1",
            paramLabel = "RESULT_DIR",
            description = "where each step's log goes (default ${DEFAULT-VALUE})")
    Path dir = Path.of("gpu-lease-results");

    @Option(
            names = "--bin",
            paramLabel = "DIR",
            description = "the bundle's bin directory (default: $HBCAST_BUNDLE/bin, else dist/hbcast-bundle/bin)")
    Path bin;

    @Option(names = "--list", description = "print the steps and their commands; run nothing")
    boolean list;

    public static void main(String[] args) {
        System.exit(HbcastBench.commandLine(new GpuLeaseCommand()).execute(args));
    }

    @Override
    public Integer call() throws IOException {
        GpuLeasePlan plan = new GpuLeasePlan(bin(), dir, onPath("nvidia-cuda-mps-control"), System.getenv());
        if (list) {
            GpuLeaseRun.list(plan, spec.commandLine().getOut());
            return 0;
        }
        if (!Files.isExecutable(plan.bin().resolve("gpu-test"))) {
            throw new IllegalArgumentException(
                    "no bundle commands in " + plan.bin() + " (make the bundle with scripts/bundle, or give --bin)");
        }
        return new GpuLeaseRun(plan, spec.commandLine().getOut()).run();
    }

    private Path bin() {
        if (bin != null) {
            return bin.toAbsolutePath().normalize();
        }
        String bundle = System.getenv("HBCAST_BUNDLE");
        return bundle != null ? Path.of(bundle, "bin") : Repository.root().resolve("dist/hbcast-bundle/bin");
    }

    private static boolean onPath(String command) {
        String path = System.getenv("PATH");
        return path != null
                && Arrays.stream(path.split(File.pathSeparator))
                        .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, command)));
    }
}
