package org.hbcast.mpi.port;

/** The thread levels of MPI ({@code MPI_THREAD_SINGLE} ... {@code MPI_THREAD_MULTIPLE}), lowest first. */
public enum ThreadLevel {
    SINGLE,
    FUNNELED,
    SERIALIZED,
    MULTIPLE;

    /** The standard's name without its {@code MPI_} prefix: {@code THREAD_MULTIPLE}. */
    public String threadName() {
        return "THREAD_" + name();
    }
}
