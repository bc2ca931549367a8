package org.hbcast.mpi.port;

/**
 * A persistent operation ({@code MPI_Send_init}, {@code MPI_Recv_init}): made once for a buffer, a
 * peer and a tag, started again for every transfer, so that transfers allocate nothing. Inactive
 * once complete; {@link #free()} ends it.
 */
public interface MpiPersistentRequest extends MpiRequest {
    /** Starts the operation again ({@code MPI_Start}). */
    void start() throws MpiFailure;
}
