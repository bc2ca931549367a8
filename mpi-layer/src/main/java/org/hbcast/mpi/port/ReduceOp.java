package org.hbcast.mpi.port;

/** The reduction operations hbcast uses: {@code MPI_MAX} and {@code MPI_MIN}. */
public enum ReduceOp {
    MAX,
    MIN
}
