package org.hbcast.mpi.openmpi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiLibrary;
import org.hbcast.mpi.port.ThreadLevel;

/** Open MPI as a whole, through its Java bindings: thread level, version, processor name, the world. */
final class OpenMpiLibrary implements MpiLibrary {
    static final OpenMpiLibrary INSTANCE = new OpenMpiLibrary();

    /** The world's port, made on first use: class {@code MPI} loads Open MPI's native library. */
    private volatile MpiComm world;

    private OpenMpiLibrary() {}

    @Override
    public ThreadLevel threadLevel() throws MpiFailure {
        int level;
        try {
            level = MPI.queryThread();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
        return threadLevel(level);
    }

    /** The bindings' constants are read from the native library at start: a chain, not a switch. */
    static ThreadLevel threadLevel(int level) {
        if (level == MPI.THREAD_MULTIPLE) {
            return ThreadLevel.MULTIPLE;
        } else if (level == MPI.THREAD_SERIALIZED) {
            return ThreadLevel.SERIALIZED;
        } else if (level == MPI.THREAD_FUNNELED) {
            return ThreadLevel.FUNNELED;
        }
        return ThreadLevel.SINGLE;
    }

    /**
     * {@code MPI.getLibVersion()}, which is callable before {@code MPI.Init}; where the bindings' native
     * library cannot load (a tool run outside mpirun), what {@code ompi_info --version} says.
     */
    @Override
    public String version() {
        try {
            return MPI.getLibVersion();
        } catch (RuntimeException | LinkageError e) {
            return ompiInfoVersion();
        }
    }

    private static String ompiInfoVersion() {
        try {
            Process p = new ProcessBuilder("ompi_info", "--version")
                    .redirectErrorStream(true)
                    .start();
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return "unknown";
            }
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException | InterruptedException e) {
            return "unknown";
        }
    }

    @Override
    public String processorName() throws MpiFailure {
        try {
            return MPI.getProcessorName();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public MpiComm world() {
        MpiComm w = world;
        if (w == null) {
            w = new OpenMpiComm(MPI.COMM_WORLD);
            world = w;
        }
        return w;
    }
}
