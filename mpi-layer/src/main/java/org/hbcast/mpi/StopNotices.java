package org.hbcast.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.mpi.port.ProbedMessage;
import org.hbcast.stage.StageException;

/**
 * Tells every rank of an instance that this rank has stopped it, and hears when another has: a rank
 * whose call failed in a way that breaks its instance (a chunk of another call, a throwable in the
 * middle of a call) sends each other rank one small notice; a rank that waits hears it in its next
 * idle rounds and fails its call too, naming the rank that stopped and why, instead of waiting for
 * a peer that will never come.
 *
 * <p>The same probe drives Open MPI's progress from a wait that makes no MPI call of its own. Over
 * TCP, a message past the eager limit goes in fragments after the receiver agrees, and a blocking
 * send returns as soon as its fragments are queued in the sender. A rank that then waits on shared
 * memory only (a header on its node's call board) never lets them leave, and the receiver, whose
 * next header the waiting rank may need, waits in its receive for ever. Seen on the 2-host test bed:
 * Open MPI's own broadcast (plan {@code native}) between the two hosts' non-leaders hung in 9 runs of
 * 11 of the soak (docs/results/soak-2host-s37.md). A probe that finds nothing makes no {@code Status}, so
 * the waits stay allocation-free.
 */
public final class StopNotices implements Runnable {
    /** Clear of hbcast's other tags; sent only by a rank that stops. */
    static final int TAG = 0x4871;

    private static final int CALL = 0;
    private static final int REASON = Long.BYTES;
    /** Reasons are cut to this many bytes: one line is enough to name the failure. */
    private static final int MAX_REASON_BYTES = 1024;

    private final MpiComm comm;
    private final int rank;
    /** The notice this rank sent, kept while its sends may be in flight (they are freed, not waited for). */
    private ByteBuffer sent;
    /** What a probe found: filled in place, so a probe allocates nothing of its own. */
    private final ProbedMessage probed = new ProbedMessage();

    public StopNotices(MpiComm comm, int rank) {
        this.comm = comm;
        this.rank = rank;
    }

    /** A peer's notice, heard during a wait: the call fails with it, and the instance stops. */
    public static final class PeerStopped extends StageException {
        private static final long serialVersionUID = 1L;

        PeerStopped(String message) {
            super(message);
        }
    }

    /**
     * Probes for a notice, which also drives MPI's progress.
     *
     * @throws PeerStopped when a peer has stopped its instance
     */
    @Override
    public void run() {
        boolean found;
        try {
            found = comm.iProbe(MpiComm.ANY_SOURCE, TAG, probed);
        } catch (MpiFailure e) {
            // The wait goes on; the call's own MPI operations report what is wrong.
            return;
        }
        if (found) {
            throw new PeerStopped(receive(probed));
        }
    }

    /**
     * Tells every other rank that this rank stopped in {@code call}, because of {@code reason}; once
     * per instance. Failure path only: it allocates. A rank that cannot send is already failing.
     */
    public void tellAll(long call, String reason) {
        if (sent != null) {
            return;
        }
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int length = Math.min(text.length, MAX_REASON_BYTES);
        sent = ByteBuffer.allocateDirect(REASON + length).order(ByteOrder.nativeOrder());
        sent.putLong(CALL, call);
        sent.put(REASON, text, 0, length);
        try {
            MpiRequest send = comm.newRequest();
            for (int r = 0; r < comm.size(); r++) {
                if (r != rank) {
                    comm.iSend(sent, sent.capacity(), r, TAG, send);
                    // Small enough to go eagerly; the buffer stays referenced by this instance meanwhile.
                    send.free();
                }
            }
        } catch (MpiFailure e) {
            // The peers will wait for this rank as for a lost one, and report it.
        }
    }

    /** Receives the notices that came and were not heard, so the communicator is freed with none queued. */
    public void drain() {
        try {
            while (comm.iProbe(MpiComm.ANY_SOURCE, TAG, probed)) {
                receive(probed);
            }
        } catch (MpiFailure | RuntimeException e) {
            // Tearing down: the communicator is freed either way.
        }
    }

    private String receive(ProbedMessage notice) {
        try {
            int source = notice.source();
            int length = notice.bytes();
            ByteBuffer in = ByteBuffer.allocateDirect(Math.max(length, REASON)).order(ByteOrder.nativeOrder());
            comm.recv(in, length, source, TAG);
            byte[] text = new byte[Math.max(0, length - REASON)];
            in.get(REASON, text);
            return "rank " + source + " stopped its hbcast instance in call " + in.getLong(CALL) + " ("
                    + new String(text, StandardCharsets.UTF_8) + "); this instance stops too";
        } catch (MpiFailure e) {
            return "a peer stopped its hbcast instance (its notice could not be read: " + MpiErrors.describe(e) + ")";
        }
    }
}
