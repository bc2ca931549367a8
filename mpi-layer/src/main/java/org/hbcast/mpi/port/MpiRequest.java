package org.hbcast.mpi.port;

/**
 * A pending MPI operation. For the immediate operations ({@link MpiComm#iSend} and the like) it is a
 * caller-owned slot, made once by {@link MpiComm#newRequest()} and refilled by every operation posted
 * into it, so that the port adds no object per message to what the binding allocates; a slot may be
 * refilled once its operation completed (a {@link #test()} that returned true, {@link #waitFor()}) or
 * was freed. An empty slot behaves as MPI's null request: complete, nothing to cancel or free.
 */
public interface MpiRequest {
    /** True once the operation has completed ({@code MPI_Test}); a completed immediate request is released. */
    boolean test() throws MpiFailure;

    /** Waits until the operation completes ({@code MPI_Wait}). */
    void waitFor() throws MpiFailure;

    /** Asks MPI to cancel the operation ({@code MPI_Cancel}); it still has to complete, or be freed. */
    void cancel() throws MpiFailure;

    /** Releases the request ({@code MPI_Request_free}); an operation in flight still completes. */
    void free() throws MpiFailure;
}
