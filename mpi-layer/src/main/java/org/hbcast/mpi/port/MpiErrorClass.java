package org.hbcast.mpi.port;

/**
 * The MPI error classes hbcast raises or meets, by the standard's names ({@code ERR_TRUNCATE} is
 * {@code MPI_ERR_TRUNCATE}). A binding maps its own numbers to these; a class it reports that is not
 * named here is {@link #ERR_UNKNOWN}. (No {@code ERR_SYSRESOURCE}: Open MPI has no such class, and its
 * Java bindings' constant of that name is never set, left at 0, {@code MPI_SUCCESS}'s number.)
 */
public enum MpiErrorClass {
    /** No error: a failure of hbcast's own that no binding classified. */
    SUCCESS,
    ERR_BUFFER,
    ERR_COUNT,
    ERR_TYPE,
    ERR_TAG,
    ERR_COMM,
    ERR_RANK,
    ERR_REQUEST,
    ERR_ROOT,
    ERR_GROUP,
    ERR_OP,
    ERR_ARG,
    ERR_UNKNOWN,
    ERR_TRUNCATE,
    ERR_OTHER,
    ERR_INTERN,
    ERR_IN_STATUS,
    ERR_PENDING,
    ERR_NO_MEM,
    ERR_NOT_SAME,
    ERR_SIZE,
    ERR_UNSUPPORTED_OPERATION;

    /** The standard's name of the class: {@code MPI_ERR_TRUNCATE}, {@code MPI_SUCCESS}. */
    public String mpiName() {
        return "MPI_" + name();
    }
}
