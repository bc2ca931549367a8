package org.hbcast.orchestration;

import java.util.function.LongFunction;
import org.hbcast.header.PayloadTree;
import org.hbcast.mpi.NodeLayout;
import org.hbcast.mpi.Topology;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.Plan;
import org.hbcast.settings.Log;

/**
 * The one line rank 0 logs per communicator at {@code create}, at the info level
 * ({@code HBCAST_LOG_LEVEL=info}): hbcast's and Open MPI's versions, the layout, the plans of a few sizes,
 * and which tree of the hosts' leaders large call headers take.
 */
final class CreateLine {
    /** Sizes whose plans the line names. */
    private static final long[] ANNOUNCED_BYTES = {1 << 10, 1 << 20, 16 << 20};

    private CreateLine() {}

    /** @param payloadTree the tree that large header payloads take ({@link PayloadTree#NONE}: none) */
    static void log(
            MpiComm comm,
            Topology topology,
            BroadcastSettings settings,
            LongFunction<Plan> plans,
            PayloadTree payloadTree) {
        if (!Log.isOn(System.Logger.Level.INFO)) {
            return;
        }
        StringBuilder named = new StringBuilder();
        for (long bytes : ANNOUNCED_BYTES) {
            Plan p = plans.apply(bytes);
            named.append(named.length() == 0 ? "" : "; ")
                    .append(bytes >= 1 << 20 ? (bytes >> 20) + " MiB " : (bytes >> 10) + " KiB ")
                    .append(p.algorithm())
                    .append(p.algorithm() == Algorithm.NATIVE ? "" : " " + p.intra() + ", chunk " + p.chunkBytes());
        }
        String mpi;
        try {
            mpi = comm.library().version().lines().findFirst().orElse("?").strip();
        } catch (RuntimeException | LinkageError e) {
            mpi = "Open MPI (version unknown)";
        }
        String library = mpi;
        NodeLayout nodes = topology.layout();
        StringBuilder sizes = new StringBuilder();
        for (int n = 0; n < nodes.nodeCount(); n++) {
            sizes.append(n == 0 ? "" : "+").append(nodes.nodeSize(n));
        }
        int ranks = nodes.size();
        Log.info(() -> "hbcast " + Log.version() + " on " + library + ": " + ranks + " ranks, nodes " + sizes
                + (topology.isVirtual() ? " (virtual)" : "") + " on "
                + topology.hostLayout().nodeCount()
                + " host(s); algorithm " + settings.choices().algorithm() + "; plans: " + named
                + (payloadTree == PayloadTree.NONE ? "" : "; " + payloadTree.describe()));
    }
}
