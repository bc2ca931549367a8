package org.hbcast.orchestration;

import java.nio.ByteBuffer;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.stage.Awaited;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.StageException;
import org.hbcast.transport.cuda.GroupExchange;

/**
 * The GPU groups' per-call wire over the node communicator: every rank sends its record to every
 * other node rank and receives theirs, waited for like the rest of the call, so a late rank is
 * reported and one that never comes does not hold this rank in a blocking all-gather. Non-blocking
 * sends and receives from direct buffers made once; on a timeout the requests stay posted into
 * buffers abandoned for good, and the call fails naming the ranks that did not come.
 */
final class GroupGather implements GroupExchange {
    private static final int TAG = 0x4867;

    private final MpiComm nodeComm;
    private final int position;
    private final int size;
    private final int bytes;
    private final long timeoutNs;
    private final ProgressWait wait;
    private ByteBuffer outgoing;
    private ByteBuffer incoming;
    private ByteBuffer[] slices;
    private MpiRequest[] sends;
    private MpiRequest[] receives;
    private final boolean[] sent;
    private final boolean[] received;
    private final Awaited peers = this::peers;

    /** Gathers records of {@code bytes} from every rank of {@code nodeComm}. */
    GroupGather(MpiComm nodeComm, int bytes, ProgressWait wait) throws MpiFailure {
        this.nodeComm = nodeComm;
        this.position = nodeComm.rank();
        this.size = nodeComm.size();
        this.bytes = bytes;
        this.timeoutNs = wait.timeoutNs();
        this.wait = wait;
        this.sent = new boolean[size];
        this.received = new boolean[size];
        fresh();
    }

    private void fresh() {
        outgoing = ByteBuffer.allocateDirect(bytes);
        incoming = ByteBuffer.allocateDirect(bytes * size);
        sends = new MpiRequest[size];
        receives = new MpiRequest[size];
        slices = new ByteBuffer[size];
        for (int p = 0; p < size; p++) {
            slices[p] = incoming.slice(p * bytes, bytes);
            sends[p] = nodeComm.newRequest();
            receives[p] = nodeComm.newRequest();
        }
    }

    @Override
    public void allGather(byte[] mine, byte[] all) {
        if (mine.length != bytes || all.length != bytes * size) {
            throw new IllegalArgumentException("records of " + bytes + " bytes from " + size + " ranks expected");
        }
        try {
            outgoing.put(0, mine, 0, bytes);
            for (int p = 0; p < size; p++) {
                sent[p] = p == position;
                received[p] = p == position;
                if (p != position) {
                    // Slices made once: the bindings use a buffer from its start whatever its position.
                    nodeComm.iRecv(slices[p], bytes, p, TAG, receives[p]);
                    nodeComm.iSend(outgoing, bytes, p, TAG, sends[p]);
                }
            }
            wait.reset();
            while (!allDone()) {
                int work = 0;
                for (int p = 0; p < size; p++) {
                    if (!sent[p] && sends[p].test()) {
                        sent[p] = true;
                        work++;
                    }
                    if (!received[p] && receives[p].test()) {
                        received[p] = true;
                        work++;
                    }
                }
                if (!allDone() && wait.timedOut(work, peers)) {
                    final String late = peers.awaited();
                    // Still posted: their buffers are abandoned with them.
                    fresh();
                    throw new StageException("timed out after " + timeoutNs / 1e9 + " s waiting for " + late);
                }
            }
            incoming.get(0, all, 0, bytes * size);
            System.arraycopy(mine, 0, all, position * bytes, bytes);
        } catch (MpiFailure e) {
            throw new StageException("cannot gather the node's GPU group records: " + e.getMessage(), e);
        }
    }

    private boolean allDone() {
        for (int p = 0; p < size; p++) {
            if (!sent[p] || !received[p]) {
                return false;
            }
        }
        return true;
    }

    private String peers() {
        final StringBuilder text = new StringBuilder("the node's GPU group records: from node ranks");
        for (int p = 0; p < size; p++) {
            if (!received[p]) {
                text.append(' ').append(p);
            }
        }
        return text.append(" (nothing received)").toString();
    }
}
