package org.hbcast.bench;

import mpi.MPI;
import mpi.MPIException;

/**
 * {@link FirstCreate} in a JVM that has done nothing but {@code MPI.Init} before the first {@code
 * create}, as a program's first broadcast often comes: no option parser has loaded classes, opened
 * the classpath's jars or warmed the JIT first (picocli does all three for {@code FirstCreate}).
 * Arguments: {@code [--bytes N] [--calls N]}, as {@code FirstCreate}'s.
 */
public final class BareFirstCreate {
    private BareFirstCreate() {}

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int bytes = 1 << 20;
        int calls = 10;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--bytes" -> bytes = Integer.parseInt(args[++i]);
                case "--calls" -> calls = Integer.parseInt(args[++i]);
                default ->
                    throw new IllegalArgumentException(
                            "bare-first-create: unknown argument " + args[i] + " (takes --bytes N and --calls N)");
            }
        }
        FirstCreateClock.run(bytes, calls, false);
        MPI.Finalize();
    }
}
