package org.hbcast.bench.ocean;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The halo exchange between ranks: rank {@code k} holds strip {@code k}; each exchange is two
 * {@code sendRecv} shifts (edge rows north, then south) through direct buffers, with
 * {@code PROC_NULL} beyond the walls. Keeps the time it spends.
 */
public final class MpiHalos implements Halos {
    private static final int TAG_NORTH = 0x0CE1;
    private static final int TAG_SOUTH = 0x0CE2;

    private final Intracomm comm;
    private final Strip strip;
    private final int south;
    private final int north;
    private final DoubleBuffer sendBuf;
    private final DoubleBuffer recvBuf;
    private long nanos;

    /** {@code comm}'s rank r holds strip r of {@code comm}'s size; {@code strip} is this rank's. */
    public MpiHalos(Intracomm comm, Strip strip) throws MPIException {
        this.comm = comm;
        this.strip = strip;
        int rank = comm.getRank();
        this.south = rank == 0 ? MPI.PROC_NULL : rank - 1;
        this.north = rank == comm.getSize() - 1 ? MPI.PROC_NULL : rank + 1;
        int w = strip.width(Field.U);
        this.sendBuf = direct(w);
        this.recvBuf = direct(w);
    }

    private static DoubleBuffer direct(int doubles) {
        return ByteBuffer.allocateDirect(doubles * Double.BYTES)
                .order(ByteOrder.nativeOrder())
                .asDoubleBuffer();
    }

    @Override
    public void exchange(Field field) throws MPIException {
        long t0 = System.nanoTime();
        double[] a = strip.array(field);
        int w = strip.width(field);
        int rows = strip.rows();
        // Top owned row goes north, the south neighbour's top row fills the halo below.
        shift(a, strip.rowOffset(field, rows), north, TAG_NORTH, south, 0, w);
        // Bottom owned row goes south, the north neighbour's bottom row fills the halo above.
        shift(a, strip.rowOffset(field, 1), south, TAG_SOUTH, north, strip.rowOffset(field, rows + 1), w);
        nanos += System.nanoTime() - t0;
    }

    private void shift(double[] a, int from, int dest, int tag, int source, int into, int w) throws MPIException {
        if (dest != MPI.PROC_NULL) {
            sendBuf.put(0, a, from, w);
        }
        comm.sendRecv(sendBuf, w, MPI.DOUBLE, dest, tag, recvBuf, w, MPI.DOUBLE, source, tag);
        if (source != MPI.PROC_NULL) {
            recvBuf.get(0, a, into, w);
        }
    }

    /** Time spent in exchanges since the last {@link #resetTime()}, in nanoseconds. */
    public long nanos() {
        return nanos;
    }

    public void resetTime() {
        nanos = 0;
    }
}
