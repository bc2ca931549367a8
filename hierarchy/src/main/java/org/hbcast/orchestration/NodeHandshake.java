package org.hbcast.orchestration;

import java.io.IOException;
import org.hbcast.mpi.MpiErrors;
import org.hbcast.mpi.StringExchange;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.transport.NodeTransport;

/**
 * The one set-up path of the node's transports (the shared-memory ring, the fan-out segment, the
 * call board, the GPU groups): it drives any {@link NodeTransport} through the same steps.
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
    private NodeHandshake() {}

    /**
     * Connects {@code transport}; collective over {@code agreeComm} (the node's communicator, or the
     * whole one where ranks on other nodes would wait for this node) and {@code nodeComm}.
     *
     * @param rank this rank in the instance's communicator, for errors
     * @return the connected transport; it owns this rank's part
     */
    static <P extends AutoCloseable, T extends AutoCloseable> T connect(
            MpiComm agreeComm, MpiComm nodeComm, int rank, NodeTransport<P, T> transport) throws MpiFailure {
        P mine = null;
        String failure = null;
        try {
            mine = transport.setUp();
        } catch (IOException | RuntimeException e) {
            failure = setUpFailure(transport.name(), rank, e.getMessage());
        }
        agreeOrFail(agreeComm, failure, mine);
        String[] descriptors = StringExchange.allGather(
                nodeComm, mine == null ? "" : transport.descriptor(mine), NodeTransport.DESCRIPTOR_BYTES);
        T connected = null;
        try {
            connected = transport.connect(mine, descriptors);
        } catch (IOException | RuntimeException e) {
            failure = "cannot connect " + transport.name() + " on rank " + rank + ": " + e.getMessage();
        }
        agreeOrFail(agreeComm, failure, connected != null ? connected : mine);
        if (mine != null) {
            try {
                transport.unlink(mine);
            } catch (IOException e) {
                // close() removes a name that is still there; the transport works either way.
            }
        }
        return connected;
    }

    /**
     * Joins the set-up of {@code transport}, which every other rank of {@code agreeComm} is in, as a
     * rank that failed to make its part for {@code reason}: all fail at its first agreement. Always throws.
     */
    static void refuse(MpiComm agreeComm, int rank, NodeTransport<?, ?> transport, String reason) throws MpiFailure {
        agreeOrFail(agreeComm, setUpFailure(transport.name(), rank, reason), null);
        throw MpiErrors.failed(reason);
    }

    private static String setUpFailure(String what, int rank, String reason) {
        return "cannot set up " + what + " on rank " + rank + ": " + reason;
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
