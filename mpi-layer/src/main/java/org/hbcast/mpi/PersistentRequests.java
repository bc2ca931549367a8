package org.hbcast.mpi;

import java.nio.Buffer;
import java.util.Arrays;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiPersistentRequest;
import org.hbcast.mpi.port.MpiRequest;

/**
 * The transfers of one tree stage under one tag as persistent requests: a receive from, or a send
 * to, one peer of one slot (a chunk of the buffer the stage moves, or its stamp), made on first use ({@code MPI_Recv_init},
 * {@code MPI_Send_init}) and started again ({@code MPI_Start}) by every later call that moves the
 * same slot between the same ranks. Open MPI's bindings make a new {@code mpi.Request} (32 bytes) per
 * immediate transfer; starting and testing a persistent request allocate nothing, so once the pairs a
 * program's calls use are made the tree allocates nothing.
 *
 * <p>A request is bound to its chunk's address: {@link #clear()} frees them all when the buffer or
 * its cut changes. At most {@link #LIMIT} are kept (each holds an Open MPI request in native
 * memory); past it a transfer is an immediate one, into the caller's slot, as without the cache.
 * Tables grow (allocate) only while new pairs are made. Not thread-safe, like the stage.
 */
final class PersistentRequests {
    /** Most requests kept: 2 directions x 8 peers x 256 chunks, say. */
    static final int LIMIT = 4096;

    private final MpiComm comm;
    private final int tag;
    /** By peer's communicator rank, then by slot; a row is made for the slot count of the current buffer. */
    private MpiPersistentRequest[][] receives = new MpiPersistentRequest[0][];

    private MpiPersistentRequest[][] sends = new MpiPersistentRequest[0][];
    private int kept;

    PersistentRequests(MpiComm comm, int tag) {
        this.comm = comm;
        this.tag = tag;
    }

    /**
     * Starts the receive of slot {@code slot} (of {@code slots}) from {@code peer} into {@code view}.
     *
     * @param spare an idle request slot of the caller's, which an immediate receive fills past {@link #LIMIT}
     * @return the request started: a persistent one, or {@code spare}
     */
    MpiRequest startReceive(int peer, int slot, int slots, Buffer view, int length, MpiRequest spare)
            throws MpiFailure {
        MpiPersistentRequest p = find(receives, peer, slot);
        if (p == null) {
            if (kept == LIMIT) {
                comm.iRecv(view, length, peer, tag, spare);
                return spare;
            }
            p = comm.recvInit(view, length, peer, tag);
            receives = keep(receives, peer, slot, slots, p);
        }
        p.start();
        return p;
    }

    /** Starts the send of slot {@code slot} (of {@code slots}) to {@code peer} from {@code view}; as {@link #startReceive}. */
    MpiRequest startSend(int peer, int slot, int slots, Buffer view, int length, MpiRequest spare) throws MpiFailure {
        MpiPersistentRequest p = find(sends, peer, slot);
        if (p == null) {
            if (kept == LIMIT) {
                comm.iSend(view, length, peer, tag, spare);
                return spare;
            }
            p = comm.sendInit(view, length, peer, tag);
            sends = keep(sends, peer, slot, slots, p);
        }
        p.start();
        return p;
    }

    /** Requests kept now. */
    int kept() {
        return kept;
    }

    private static MpiPersistentRequest find(MpiPersistentRequest[][] table, int peer, int chunk) {
        return peer < table.length && table[peer] != null ? table[peer][chunk] : null;
    }

    private MpiPersistentRequest[][] keep(
            MpiPersistentRequest[][] table, int peer, int chunk, int chunks, MpiPersistentRequest p) {
        MpiPersistentRequest[][] t =
                peer < table.length ? table : Arrays.copyOf(table, Math.max(peer + 1, 2 * table.length));
        if (t[peer] == null) {
            t[peer] = new MpiPersistentRequest[chunks];
        }
        t[peer][chunk] = p;
        kept++;
        return t;
    }

    /**
     * Frees every request kept: an inactive one at once, one still active (a send in flight, a receive
     * cancelled after a failure) once it completes, as {@code MPI_Request_free} does. Tries them all.
     *
     * @throws MpiFailure the first failure, once every request was tried
     */
    void clear() throws MpiFailure {
        MpiFailure first = freeAll(receives, null);
        first = freeAll(sends, first);
        kept = 0;
        if (first != null) {
            throw first;
        }
    }

    private static MpiFailure freeAll(MpiPersistentRequest[][] table, MpiFailure first) {
        for (int peer = 0; peer < table.length; peer++) {
            MpiPersistentRequest[] row = table[peer];
            if (row == null) {
                continue;
            }
            for (int chunk = 0; chunk < row.length; chunk++) {
                if (row[chunk] != null) {
                    try {
                        row[chunk].free();
                    } catch (MpiFailure e) {
                        first = first == null ? e : first;
                    }
                }
            }
            table[peer] = null;
        }
        return first;
    }
}
