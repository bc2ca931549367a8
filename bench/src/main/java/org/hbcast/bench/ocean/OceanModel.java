package org.hbcast.bench.ocean;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.HierarchicalBcast;
import org.hbcast.bench.MpiCommand;
import org.hbcast.bench.report.LinkBound;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * The ocean-model application benchmark: a wind-driven shallow-water basin cut into strips, one per
 * rank, whose I/O rank broadcasts the full-domain wind field every K steps. Runs the same model
 * with each broadcast implementation from the same initial state, reports total and broadcast time
 * and the speedup, and checks that every run ends in the bit-identical state (exit status 1 if not).
 */
@Command(
        name = "ocean",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Shallow-water ocean model whose I/O rank broadcasts the wind field every K steps;"
                + " native vs hierarchical broadcast, end to end.")
public final class OceanModel implements Callable<Integer> {
    /** The suffix naming an implementation's overlapped runs ({@code --overlap}). */
    static final String OVERLAP = "+overlap";

    @Option(names = "--nx", description = "cells in x (default ${DEFAULT-VALUE})")
    int nx = 512;

    @Option(names = "--ny", description = "cells in y, cut into one strip per rank (default ${DEFAULT-VALUE})")
    int ny = 512;

    @Option(names = "--steps", description = "time steps per run (default ${DEFAULT-VALUE})")
    int steps = 200;

    @Option(
            names = {"-K", "--forcing-every"},
            description = "broadcast a fresh wind field every K steps (default ${DEFAULT-VALUE})")
    int forcingEvery = 5;

    @Option(
            names = "--impl",
            split = ",",
            description = "broadcast implementations, the first is the baseline:"
                    + " native, hierarchical, knomial, auto (default native,hierarchical)")
    List<String> impls = List.of("native", "hierarchical");

    @Option(
            names = "--repeat",
            description = "runs per implementation, alternated ABBA; the median is reported (default ${DEFAULT-VALUE})")
    int repeat = 1;

    @Option(
            names = "--warmup",
            description = "untimed steps per implementation before the runs (default ${DEFAULT-VALUE})")
    int warmup = 10;

    @Option(names = "--io-rank", description = "rank that computes and broadcasts the wind (default ${DEFAULT-VALUE})")
    int ioRank;

    @Option(names = "--dx-km", description = "cell size in km (default ${DEFAULT-VALUE})")
    double dxKm = 20;

    @Option(
            names = "--cfl",
            description = "Courant number of gravity waves, below 1/sqrt(2) (default ${DEFAULT-VALUE})")
    double cfl = 0.5;

    @Option(
            names = "--overlap",
            description = "also run each implementation with iBcast: the next wind field is broadcast"
                    + " while the current steps compute (runs named IMPL+overlap); prints the fraction hidden")
    boolean overlap;

    @Option(names = "--json", description = "also write the report as JSON to this file")
    Path json;

    @Option(
            names = "--link-bound",
            description = "the link bound measured by LinkProbe --json: print each broadcast's fraction of it")
    Path linkBound;

    @Option(
            names = "--progress",
            negatable = true,
            description = "progress bar on standard error"
                    + " (default: when it is a terminal; scripts/ocean passes --progress when yours is)")
    Boolean progress;

    public static void main(String[] args) throws Exception {
        MpiCommand.run(OceanModel::commandLine, args);
    }

    /** The command line; only {@code rank} 0 prints errors, so a bad option is reported once. */
    static CommandLine commandLine(int rank) {
        CommandLine cl = new CommandLine(new OceanModel());
        cl.setParameterExceptionHandler((e, args) -> {
            if (rank == 0) {
                e.getCommandLine().getErr().println("ocean: " + e.getMessage() + " (see --help)");
                e.getCommandLine().getErr().flush();
            }
            return 2;
        });
        // A rank that fails mid-run (a broadcast timeout, say) ends the job at once: the others
        // may be waiting in a collective that will never complete, and finalize would join them.
        cl.setExecutionExceptionHandler((e, line, parsed) -> {
            System.err.println("ocean: rank " + rank + " failed: " + e);
            e.printStackTrace();
            System.err.flush();
            MPI.COMM_WORLD.abort(1);
            return 1;
        });
        return cl;
    }

    @Override
    public Integer call() throws Exception {
        Intracomm world = MPI.COMM_WORLD;
        int rank = world.getRank();
        OceanSettings settings = settings(world.getSize());
        Map<String, Algorithm> algorithms = algorithms();
        LinkBound bound = linkBound != null ? LinkBound.read(linkBound) : null; // a bad file fails before any step
        boolean bar = rank == 0 && (progress != null ? progress : System.console() != null);

        Intracomm comm = world.dup();
        Map<String, HierarchicalBcast> instances = new LinkedHashMap<>();
        for (Map.Entry<String, Algorithm> e : algorithms.entrySet()) {
            instances.put(
                    e.getKey(),
                    HierarchicalBcast.create(world, BcastOptions.defaults().withAlgorithm(e.getValue())));
        }
        OceanRun model = new OceanRun(comm, settings);
        String nodes = instances.values().iterator().next().topology().toString();
        List<String> names = new ArrayList<>(impls);
        if (overlap) {
            for (String impl : impls) {
                names.add(impl + OVERLAP);
            }
        }
        OceanReport report = new OceanReport(settings, world.getSize(), nodes, names);
        if (rank == 0) {
            report.printHeader(System.out);
        }
        for (HierarchicalBcast hb : instances.values()) {
            model.run(hb, warmup, step -> {});
            if (overlap) {
                model.runOverlapped(hb, warmup, step -> {});
            }
        }
        for (int round = 0; round < repeat; round++) {
            List<String> order = new ArrayList<>(names);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (String name : order) {
                boolean overlapped = name.endsWith(OVERLAP);
                HierarchicalBcast hb =
                        instances.get(overlapped ? name.substring(0, name.length() - OVERLAP.length()) : name);
                try (Progress p = Progress.of(bar, name + " " + (round + 1) + "/" + repeat, steps)) {
                    report.add(name, overlapped ? model.runOverlapped(hb, steps, p) : model.run(hb, steps, p));
                }
            }
        }
        // Collective: reached only when every rank got here; a failure aborts the job instead.
        for (HierarchicalBcast hb : instances.values()) {
            hb.close();
        }
        comm.free();
        if (rank != 0) {
            return 0;
        }
        report.print(System.out);
        if (overlap) {
            for (String impl : impls) {
                report.printHidden(System.out, impl, impl + OVERLAP);
            }
        }
        if (bound != null) {
            report.printLinkBound(System.out, bound);
        }
        if (json != null) {
            report.writeJson(json);
        }
        return report.bitIdentical() ? 0 : 1;
    }

    /** The settings for a job of {@code ranks} ranks, checked before any communication. */
    OceanSettings settings(int ranks) {
        if (repeat < 1) {
            throw bad("--repeat must be at least 1, not " + repeat);
        }
        if (warmup < 0) {
            throw bad("--warmup must be 0 or more, not " + warmup);
        }
        if (!(dxKm > 0) || Double.isInfinite(dxKm)) {
            throw bad("--dx-km must be a positive number of kilometres, not " + dxKm);
        }
        if (!(cfl > 0)) {
            throw bad("--cfl must be positive, not " + cfl);
        }
        OceanSettings s = new OceanSettings(
                nx,
                ny,
                steps,
                forcingEvery,
                ioRank,
                OceanParameters.midLatitude(dxKm).withCfl(cfl));
        try {
            s.check(ranks);
        } catch (IllegalArgumentException e) {
            throw bad(e.getMessage());
        }
        return s;
    }

    /** The algorithm of each --impl name, in order; unknown or repeated names are rejected. */
    Map<String, Algorithm> algorithms() {
        if (impls.isEmpty()) {
            throw bad("--impl needs at least one implementation");
        }
        Map<String, Algorithm> out = new LinkedHashMap<>();
        for (String impl : impls) {
            Algorithm a;
            try {
                a = Algorithm.parse(impl);
            } catch (IllegalArgumentException e) {
                throw bad("--impl: unknown implementation '" + impl + "' (native, hierarchical, knomial, auto)");
            }
            if (out.put(impl, a) != null) {
                throw bad("--impl names '" + impl + "' twice");
            }
        }
        return out;
    }

    private ParameterException bad(String message) {
        return new ParameterException(new CommandLine(this), message);
    }
}
