package org.hbcast.bench;

import java.util.concurrent.Callable;
import mpi.MPI;
import mpi.MPIException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What a program's first broadcast costs in a fresh JVM: each rank's time in the first {@code create}
 * (from a barrier), the slowest rank's, then the first calls on it. With {@code --comm} it makes no
 * instance and times {@code MPI.COMM_WORLD.bcast} instead: run under the agent, that is the agent's
 * first redirected call, which makes the instance. Run it first in its JVM: a later create is cheap.
 */
@Command(
        name = "first-create",
        mixinStandardHelpOptions = true,
        description = "Times the first create of a JVM (ms per rank, the slowest) and the first calls after it.")
public final class FirstCreate implements Callable<Integer> {
    @Option(names = "--bytes", description = "bytes of each call (default ${DEFAULT-VALUE})")
    int bytes = 1 << 20;

    @Option(names = "--calls", description = "calls timed after the first (default ${DEFAULT-VALUE})")
    int calls = 10;

    @Option(
            names = "--comm",
            description = "time MPI.COMM_WORLD.bcast's first call instead of create (under the agent: its create)")
    boolean comm;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rc = new CommandLine(new FirstCreate()).execute(args);
        MPI.Finalize();
        System.exit(rc);
    }

    @Override
    public Integer call() throws MPIException {
        FirstCreateClock.run(bytes, calls, comm);
        return 0;
    }
}
