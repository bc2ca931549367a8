package org.hbcast.transport.cuda;

/**
 * The wire a transport's per-call protocol runs over, given by the caller that owns the node's
 * communicator (the transport knows nothing of MPI): sends this rank's bytes to its left ring
 * neighbour and receives its right neighbour's, both of the same length.
 */
@FunctionalInterface
public interface NeighbourExchange {
    /**
     * Blocks until both moves are done.
     *
     * @throws org.hbcast.stage.StageException when the exchange fails
     */
    void swap(byte[] toLeft, byte[] fromRight);
}
