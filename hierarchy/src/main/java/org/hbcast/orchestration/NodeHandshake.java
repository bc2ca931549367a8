package org.hbcast.orchestration;

import java.io.IOException;
import java.util.function.Function;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;

/**
 * The one set-up handshake of the node's transports (the shared-memory ring, the fan-out segment, the
 * call board, the CUDA ring), over each transport's local descriptor, a short string (a segment's
 * path; for the CUDA ring a path and an IPC handle):
 *
 * <ol>
 * <li>every rank that makes a part makes it (its inbox, or node rank 0 the node's segment);</li>
 * <li>all agree that nobody failed;</li>
 * <li>the descriptors are all-gathered over the node;</li>
 * <li>every rank attaches to the parts it needs (maps a neighbour's inbox, the node's segment);</li>
 * <li>all agree again;</li>
 * <li>the makers unlink their parts' names, so that nothing is left in {@code /dev/shm} even if the
 * job is killed later.</li>
 * </ol>
 *
 * Either every rank goes on, or every rank fails with the first reason, so no rank waits for a peer
 * that gave up.
 */
final class NodeHandshake {
    /** Room for one rank's descriptor in the all-gather. */
    static final int DESCRIPTOR_BYTES = 512;

    /** Makes this rank's part, or returns null where this rank makes none. */
    interface Maker<T> {
        T make() throws IOException;
    }

    /** Attaches to the node's parts: {@code descriptors[p]} is node rank {@code p}'s ("" where it made none). */
    interface Attacher<T, R> {
        R attach(T mine, String[] descriptors) throws IOException;
    }

    /** Removes the name of this rank's part once every rank has attached. */
    interface Unlinker<T> {
        void unlink(T mine) throws IOException;
    }

    private NodeHandshake() {}

    /**
     * Runs the handshake; collective over {@code agreeComm} (the node's communicator, or the whole
     * one where ranks on other nodes would wait for this node) and {@code nodeComm}.
     *
     * @param what the transport, for errors ("the node's fan-out segment")
     * @param rank this rank in the instance's communicator, for errors
     * @return what the attacher made of the parts; it owns this rank's part
     */
    static <T extends AutoCloseable, R extends AutoCloseable> R connect(
            MpiComm agreeComm,
            MpiComm nodeComm,
            String what,
            int rank,
            Maker<T> maker,
            Function<T, String> descriptor,
            Attacher<T, R> attacher,
            Unlinker<T> unlinker)
            throws MpiFailure {
        T mine = null;
        String failure = null;
        try {
            mine = maker.make();
        } catch (IOException | RuntimeException e) {
            failure = "cannot set up " + what + " on rank " + rank + ": " + e.getMessage();
        }
        agreeOrFail(agreeComm, failure, mine);
        String[] descriptors =
                StringExchange.allGather(nodeComm, mine == null ? "" : descriptor.apply(mine), DESCRIPTOR_BYTES);
        R attached = null;
        try {
            attached = attacher.attach(mine, descriptors);
        } catch (IOException | RuntimeException e) {
            failure = "cannot connect " + what + " on rank " + rank + ": " + e.getMessage();
        }
        agreeOrFail(agreeComm, failure, attached != null ? attached : mine);
        if (mine != null) {
            try {
                unlinker.unlink(mine);
            } catch (IOException e) {
                // close() removes a name that is still there; the transport works either way.
            }
        }
        return attached;
    }

    /**
     * All ranks of {@code comm} learn whether any failed; all fail alike if one did, with the first
     * failing rank's reason, closing {@code built} (what this rank built so far) first.
     */
    private static void agreeOrFail(MpiComm comm, String failure, AutoCloseable built) throws MpiFailure {
        try {
            CreateTogether.check(comm, failure);
        } catch (MpiFailure e) {
            try {
                if (built != null) {
                    built.close();
                }
            } catch (Exception ignored) {
                // Failing already; the reason matters more.
            }
            throw e;
        }
    }
}
