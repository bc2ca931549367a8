package org.hbcast.bench;

import mpi.MPI;
import picocli.CommandLine;

/** The main of every picocli tool that runs under {@code mpirun}: MPI around the command, its exit code out. */
public final class MpiCommand {
    private MpiCommand() {
    }

    public static void run(Object command, String[] args) throws Exception {
        System.setProperty("java.awt.headless", "true");
        MPI.Init(args);
        int code = new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).execute(args);
        MPI.Finalize();
        System.exit(code);
    }
}
