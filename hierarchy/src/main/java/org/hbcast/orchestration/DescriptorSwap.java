package org.hbcast.orchestration;

import java.nio.ByteBuffer;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.stage.Awaited;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.StageException;
import org.hbcast.transport.cuda.NeighbourExchange;

/**
 * The CUDA ring's per-call wire over the node communicator: each rank sends its record to its left
 * ring neighbour and receives its right neighbour's, waited for like the rest of the call, so a
 * neighbour that is late is reported, and one that died or never came does not hold this rank in a
 * blocking {@code sendRecv} where the wait gives up. Non-blocking send
 * and receive from direct buffers made once; on a timeout the requests stay posted into buffers
 * abandoned for good (MPI may still write them: the late neighbour's record lands there), and the
 * call fails naming the neighbour that did not come.
 */
final class DescriptorSwap implements NeighbourExchange {
    private static final int TAG = 0x4864;

    private final MpiComm nodeComm;
    private final int left;
    private final int right;
    private final int bytes;
    private final long timeoutNs;
    private final ProgressWait wait;
    private ByteBuffer outgoing;
    private ByteBuffer incoming;
    /** How far the swap in progress got, for the report of a long wait and the failure. */
    private boolean sent;

    private boolean received;
    private final Awaited neighbours = this::neighbours;
    /** The swap's two requests, refilled by every swap. */
    private MpiRequest send;

    private MpiRequest receive;

    /** Swaps records of {@code bytes} with node ranks {@code left} and {@code right} of {@code nodeComm}. */
    DescriptorSwap(MpiComm nodeComm, int left, int right, int bytes, ProgressWait wait) {
        this.nodeComm = nodeComm;
        this.left = left;
        this.right = right;
        this.bytes = bytes;
        this.timeoutNs = wait.timeoutNs();
        this.wait = wait;
        this.outgoing = ByteBuffer.allocateDirect(bytes);
        this.incoming = ByteBuffer.allocateDirect(bytes);
        this.send = nodeComm.newRequest();
        this.receive = nodeComm.newRequest();
    }

    @Override
    public void swap(byte[] toLeft, byte[] fromRight) {
        if (toLeft.length != bytes || fromRight.length != bytes) {
            throw new IllegalArgumentException("records of " + bytes + " bytes expected");
        }
        try {
            // Absolute: the bindings send from the buffer's start whatever its position.
            outgoing.put(0, toLeft, 0, bytes);
            nodeComm.iSend(outgoing, bytes, left, TAG, send);
            nodeComm.iRecv(incoming, bytes, right, TAG, receive);
            wait.reset();
            sent = false;
            received = false;
            while (!(sent && received)) {
                sent = sent || send.test();
                received = received || receive.test();
                if (!(sent && received) && wait.timedOut(0, neighbours)) {
                    outgoing = ByteBuffer.allocateDirect(bytes);
                    incoming = ByteBuffer.allocateDirect(bytes);
                    // Still posted: their slots are abandoned with the buffers.
                    send = nodeComm.newRequest();
                    receive = nodeComm.newRequest();
                    throw new StageException(
                            "timed out after " + timeoutNs / 1e9 + " s waiting for " + neighbours.awaited());
                }
            }
            incoming.get(0, fromRight, 0, bytes);
        } catch (MpiFailure e) {
            throw new StageException("cannot swap buffer descriptors with the ring neighbours: " + e.getMessage(), e);
        }
    }

    private String neighbours() {
        return "the ring neighbours' buffer descriptors: node rank " + right + " (right) "
                + (received ? "sent its own" : "sent nothing") + ", node rank " + left + " (left) "
                + (sent ? "took ours" : "did not take ours");
    }
}
