package org.hbcast.mpi;

import java.nio.Buffer;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Prequest;
import mpi.Request;

/**
 * The transfers of one tree stage under one tag as persistent requests: a receive from, or a send
 * to, one peer of one slot (a chunk of the buffer the stage moves, or its stamp), made on first use ({@code MPI_Recv_init},
 * {@code MPI_Send_init}) and started again ({@code MPI_Start}) by every later call that moves the
 * same slot between the same ranks. The bindings' {@code iRecv} and {@code iSend} return a new
 * {@code mpi.Request} (32 bytes) per transfer; {@code Prequest.start()} and {@code Request.test()}
 * allocate nothing, so once the pairs a program's calls use are made the tree allocates nothing.
 *
 * <p>A request is bound to its chunk's address: {@link #clear()} frees them all when the buffer or
 * its cut changes. At most {@link #LIMIT} are kept (each holds an Open MPI request in native
 * memory); past it a transfer takes a request of its own, as without the cache.
 * Tables grow (allocate) only while new pairs are made. Not thread-safe, like the stage.
 */
final class PersistentRequests {
    /** Most requests kept: 2 directions x 8 peers x 256 chunks, say. */
    static final int LIMIT = 4096;

    private final Intracomm comm;
    private final int tag;
    /** By peer's communicator rank, then by slot; a row is made for the slot count of the current buffer. */
    private Prequest[][] receives = new Prequest[0][];

    private Prequest[][] sends = new Prequest[0][];
    private int kept;

    PersistentRequests(Intracomm comm, int tag) {
        this.comm = comm;
        this.tag = tag;
    }

    /** Starts the receive of slot {@code slot} (of {@code slots}) from {@code peer} into {@code view}. */
    Request startReceive(int peer, int slot, int slots, Buffer view, int length) throws MPIException {
        Prequest p = find(receives, peer, slot);
        if (p == null) {
            if (kept == LIMIT) {
                return comm.iRecv(view, length, MPI.BYTE, peer, tag);
            }
            p = comm.recvInit(view, length, MPI.BYTE, peer, tag);
            receives = keep(receives, peer, slot, slots, p);
        }
        p.start();
        return p;
    }

    /** Starts the send of slot {@code slot} (of {@code slots}) to {@code peer} from {@code view}. */
    Request startSend(int peer, int slot, int slots, Buffer view, int length) throws MPIException {
        Prequest p = find(sends, peer, slot);
        if (p == null) {
            if (kept == LIMIT) {
                return comm.iSend(view, length, MPI.BYTE, peer, tag);
            }
            p = comm.sendInit(view, length, MPI.BYTE, peer, tag);
            sends = keep(sends, peer, slot, slots, p);
        }
        p.start();
        return p;
    }

    /** Requests kept now. */
    int kept() {
        return kept;
    }

    private static Prequest find(Prequest[][] table, int peer, int chunk) {
        return peer < table.length && table[peer] != null ? table[peer][chunk] : null;
    }

    private Prequest[][] keep(Prequest[][] table, int peer, int chunk, int chunks, Prequest p) {
        Prequest[][] t = peer < table.length ? table : Arrays.copyOf(table, Math.max(peer + 1, 2 * table.length));
        if (t[peer] == null) {
            t[peer] = new Prequest[chunks];
        }
        t[peer][chunk] = p;
        kept++;
        return t;
    }

    /**
     * Frees every request kept: an inactive one at once, one still active (a send in flight, a receive
     * cancelled after a failure) once it completes, as {@code MPI_Request_free} does. Tries them all.
     *
     * @throws MPIException the first failure, once every request was tried
     */
    void clear() throws MPIException {
        MPIException first = freeAll(receives, null);
        first = freeAll(sends, first);
        kept = 0;
        if (first != null) {
            throw first;
        }
    }

    private static MPIException freeAll(Prequest[][] table, MPIException first) {
        for (int peer = 0; peer < table.length; peer++) {
            Prequest[] row = table[peer];
            if (row == null) {
                continue;
            }
            for (int chunk = 0; chunk < row.length; chunk++) {
                if (row[chunk] != null) {
                    try {
                        row[chunk].free();
                    } catch (MPIException e) {
                        first = first == null ? e : first;
                    }
                }
            }
            table[peer] = null;
        }
        return first;
    }
}
