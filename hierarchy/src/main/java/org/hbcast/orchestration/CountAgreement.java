package org.hbcast.orchestration;

import org.hbcast.call.CallAgreement;
import org.hbcast.call.CountRule;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.port.MpiFailure;

/**
 * The per-call agreement on the root's count where no header carries it (host calls under
 * {@link CountRule#EQUAL}, device calls): every rank learns what the root sends before anything is
 * sent, unless the program promised equal counts ({@link CountRule#TRUSTED}).
 */
final class CountAgreement {
    private final CallAgreement agreement;
    private final CountRule counts;
    private final int size;
    private final InstanceStop stop;

    CountAgreement(CallAgreement agreement, CountRule counts, int size, InstanceStop stop) {
        this.agreement = agreement;
        this.counts = counts;
        this.size = size;
        this.stop = stop;
    }

    /** True when calls go through the agreement (several ranks, counts not trusted). */
    boolean agrees() {
        return size > 1 && counts != CountRule.TRUSTED;
    }

    /**
     * This rank refused its arguments: under the agreement it still joins it, so the other ranks
     * fail this call too instead of pairing their next call with this one.
     */
    void refuse(int root) throws MpiFailure {
        if (agrees() && agreement.refuse(root) == CallAgreement.TIMED_OUT) {
            stop.stop(agreement.timeoutMessage(0, root), null);
        }
    }

    /** The bytes this call moves: the root's, agreed by every rank unless counts are trusted. */
    long agree(long bytes, ElementType type, int root) throws MpiFailure {
        if (!agrees()) {
            return bytes;
        }
        long agreed = agreement.agree(bytes, type, root, counts);
        if (agreed == CallAgreement.TIMED_OUT) {
            stop.stop(agreement.timeoutMessage(bytes, root), null);
        }
        return agreed;
    }
}
