package org.hbcast.mpi.port;

/** What hbcast asks of the MPI library as a whole, beside its communicators. */
public interface MpiLibrary {
    /** The thread level MPI was initialised with ({@code MPI_Query_thread}). */
    ThreadLevel threadLevel() throws MpiFailure;

    /**
     * The library's version text ({@code MPI_Get_library_version}), for fingerprints and logs; never
     * fails: a binding that cannot ask its library says what it can (or {@code unknown}).
     */
    String version();

    /** This process's processor name ({@code MPI_Get_processor_name}). */
    String processorName() throws MpiFailure;

    /** The world communicator, {@code MPI_COMM_WORLD}. */
    MpiComm world();
}
