package org.hbcast.mpi.port;

import java.nio.Buffer;
import java.nio.LongBuffer;

/**
 * An MPI intra-communicator, with the operations hbcast uses on it and no others: its shape, the
 * communicators made from it, small blocking collectives on Java arrays (set-up and agreements),
 * the program's own broadcast (the {@code native} plan), the non-blocking collectives a call waits
 * for, and point to point on direct buffers, immediate and persistent.
 *
 * <p>Point to point moves bytes: {@code bytes} of a buffer from its address on, whatever its position
 * (as the bindings do), the buffer direct. Every operation throws an {@link MpiFailure} where MPI
 * reports an error, which it does only on a communicator that returns errors
 * ({@link #returnErrors()}); elsewhere MPI's default handler ends the job.
 */
public interface MpiComm {
    /** The source of a receive or probe that takes a message from any rank ({@code MPI_ANY_SOURCE}). */
    int ANY_SOURCE = -1;

    /** A color that joins no communicator, a rank outside a group ({@code MPI_UNDEFINED}). */
    int UNDEFINED = -32766;

    /** The library this communicator belongs to. */
    MpiLibrary library();

    int rank() throws MpiFailure;

    int size() throws MpiFailure;

    /** A duplicate, with a communication context of its own ({@code MPI_Comm_dup}). Collective. */
    MpiComm dup() throws MpiFailure;

    /**
     * The ranks of {@code color}, ordered by {@code key} ({@code MPI_Comm_split}); null on a rank that
     * passed {@link #UNDEFINED}. Collective.
     */
    MpiComm split(int color, int key) throws MpiFailure;

    /**
     * The ranks that share memory with this one, ordered by {@code key} ({@code MPI_Comm_split_type}
     * with {@code MPI_COMM_TYPE_SHARED}). Collective.
     */
    MpiComm splitByNode(int key) throws MpiFailure;

    /** Frees this communicator ({@code MPI_Comm_free}). Collective. */
    void free() throws MpiFailure;

    /**
     * Makes MPI errors on this communicator come back as {@link MpiFailure}s
     * ({@code MPI_ERRORS_RETURN}) instead of ending the job.
     */
    void returnErrors() throws MpiFailure;

    /**
     * The ranks {@code ranks} of this communicator as ranks of the world communicator, each
     * {@link #UNDEFINED} where that process is outside this process's world (spawned or connected).
     */
    int[] worldRanks(int[] ranks) throws MpiFailure;

    /**
     * Broadcasts {@code count} elements of {@code type} in {@code buf}, a Java primitive array or a
     * direct buffer, from {@code root} ({@code MPI_Bcast}). Collective.
     */
    void bcast(Object buf, int count, BasicType type, int root) throws MpiFailure;

    /**
     * Starts a broadcast of {@code bytes} of {@code buf}, a direct buffer, from {@code root}
     * ({@code MPI_Ibcast}): what a non-blocking call of the native plan runs. Collective.
     */
    void iBcast(Buffer buf, int bytes, int root, MpiRequest into) throws MpiFailure;

    /** Replaces {@code buf[0..count)} by its reduction over the ranks ({@code MPI_Allreduce}, in place). Collective. */
    void allReduce(int[] buf, int count, ReduceOp op) throws MpiFailure;

    /** Every rank's {@code mine[0..count)}, by rank, into {@code all} ({@code MPI_Allgather}). Collective. */
    void allGather(byte[] mine, int count, byte[] all) throws MpiFailure;

    /** As {@link #allGather(byte[], int, byte[])}, of ints. */
    void allGather(int[] mine, int count, int[] all) throws MpiFailure;

    /** As {@link #allGather(byte[], int, byte[])}, of longs. */
    void allGather(long[] mine, int count, long[] all) throws MpiFailure;

    /** Starts an all-reduce of {@code buf[0..count)} in place, a direct buffer ({@code MPI_Iallreduce}). */
    void iAllReduce(LongBuffer buf, int count, ReduceOp op, MpiRequest into) throws MpiFailure;

    /** Starts a reduce of {@code send[0..count)} into {@code receive} at {@code root} ({@code MPI_Ireduce}). */
    void iReduce(LongBuffer send, LongBuffer receive, int count, ReduceOp op, int root, MpiRequest into)
            throws MpiFailure;

    /** Starts a barrier ({@code MPI_Ibarrier}). */
    void iBarrier(MpiRequest into) throws MpiFailure;

    /** An empty request slot of this binding, for the immediate operations to fill. */
    MpiRequest newRequest();

    /** Sends {@code bytes} of {@code buf} to {@code dest} ({@code MPI_Send}). */
    void send(Buffer buf, int bytes, int dest, int tag) throws MpiFailure;

    /** Receives at most {@code bytes} into {@code buf} from {@code source} ({@code MPI_Recv}). */
    void recv(Buffer buf, int bytes, int source, int tag) throws MpiFailure;

    /** A send and a receive at once ({@code MPI_Sendrecv}). */
    void sendRecv(
            Buffer send,
            int sendBytes,
            int dest,
            int sendTag,
            Buffer receive,
            int receiveBytes,
            int source,
            int receiveTag)
            throws MpiFailure;

    /** Starts a send ({@code MPI_Isend}) into the slot {@code into}. */
    void iSend(Buffer buf, int bytes, int dest, int tag, MpiRequest into) throws MpiFailure;

    /**
     * Starts a synchronous send ({@code MPI_Issend}) into the slot {@code into}: it completes only
     * once the receiver has matched it, so a sender cannot run ahead of its receiver past it.
     */
    void iSendSynchronous(Buffer buf, int bytes, int dest, int tag, MpiRequest into) throws MpiFailure;

    /** Starts a receive ({@code MPI_Irecv}) into the slot {@code into}. */
    void iRecv(Buffer buf, int bytes, int source, int tag, MpiRequest into) throws MpiFailure;

    /** A persistent send, inactive until started ({@code MPI_Send_init}). */
    MpiPersistentRequest sendInit(Buffer buf, int bytes, int dest, int tag) throws MpiFailure;

    /** A persistent receive, inactive until started ({@code MPI_Recv_init}). */
    MpiPersistentRequest recvInit(Buffer buf, int bytes, int source, int tag) throws MpiFailure;

    /**
     * Whether a message from {@code source} (or {@link #ANY_SOURCE}) under {@code tag} waits to be
     * received ({@code MPI_Iprobe}); if so, its sender and length go into {@code into}. Also drives
     * MPI's progress.
     */
    boolean iProbe(int source, int tag, ProbedMessage into) throws MpiFailure;
}
