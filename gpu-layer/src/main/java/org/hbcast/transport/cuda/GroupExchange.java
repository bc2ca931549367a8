package org.hbcast.transport.cuda;

/**
 * The wire of a GPU group call's start, given by the caller that owns the node's communicator (the
 * transport knows nothing of MPI): every node rank contributes a record of the same length and
 * receives everyone's.
 */
@FunctionalInterface
public interface GroupExchange {
    /**
     * Blocks until node rank {@code p}'s record is at {@code p * mine.length} of {@code all}, for every
     * {@code p}.
     *
     * @throws org.hbcast.stage.StageException when the exchange fails
     */
    void allGather(byte[] mine, byte[] all);
}
