package org.hbcast.bench.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import org.hbcast.bench.launch.BenchFailure;
import org.hbcast.bench.simulate.Simulate;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code hbcast-bench}, the experiments' one command: {@code scripts/compare}, {@code tune},
 * {@code ocean}, {@code soak} and {@code simulate} set up and start it with their arguments; the
 * bundle's {@code bin/gpu-lease} starts {@link GpuLeaseCommand} alone.
 */
@Command(
        name = "hbcast-bench",
        mixinStandardHelpOptions = true,
        version = "hbcast-bench 0.1.0",
        description = "hbcast's experiments: the comparison with Open MPI, tuning, the ocean model, the soak,"
                + " the simulator and a GPU lease's checks.",
        subcommands = {
            CompareCommand.class,
            TuneCommand.class,
            OceanCommand.class,
            SoakCommand.class,
            Simulate.class,
            GpuLeaseCommand.class
        })
public final class HbcastBench implements Runnable {
    /** Exit status of a usage error and of a failure the scripts' {@code die} reported. */
    public static final int USAGE = 2;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        System.exit(commandLine(new HbcastBench()).execute(args));
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name an experiment");
    }

    /**
     * The command line of {@code command} as every experiment runs it: enum values in any case, a
     * usage error as one line naming the problem, a failure as one line with its exit status.
     */
    public static CommandLine commandLine(Object command) {
        return new CommandLine(command)
                .setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler((e, args) -> {
                    CommandLine cli = e.getCommandLine();
                    cli.getErr()
                            .println("hbcast: error: " + e.getMessage() + " (see "
                                    + cli.getCommandSpec().qualifiedName() + " --help)");
                    return USAGE;
                })
                .setExecutionExceptionHandler((e, cli, parsed) -> {
                    if (e instanceof BenchFailure f) {
                        cli.getErr().println("hbcast: error: " + f.getMessage());
                        return f.exitStatus();
                    }
                    if (e instanceof IOException
                            || e instanceof UncheckedIOException
                            || e instanceof IllegalArgumentException
                            || e instanceof IllegalStateException) {
                        cli.getErr().println("hbcast: error: " + e.getMessage());
                        return USAGE;
                    }
                    throw e;
                });
    }
}
