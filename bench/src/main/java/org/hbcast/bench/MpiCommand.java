package org.hbcast.bench;

import java.util.function.IntFunction;
import mpi.MPI;
import picocli.CommandLine;

/** The main of every picocli tool that runs under {@code mpirun}: MPI around the command, its exit code out. */
public final class MpiCommand {
    private MpiCommand() {}

    public static void run(Object command, String[] args) throws Exception {
        run(rank -> commandLine(command), args);
    }

    /** The command line every tool parses with: enum values in any case. */
    public static CommandLine commandLine(Object command) {
        return new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** As {@link #run(Object, String[])}, for a command line that depends on the rank (say, who prints errors). */
    public static void run(IntFunction<CommandLine> commandLineForRank, String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        MPI.Init(args);
        int code = commandLineForRank.apply(MPI.COMM_WORLD.getRank()).execute(args);
        MPI.Finalize();
        System.exit(code);
    }
}
