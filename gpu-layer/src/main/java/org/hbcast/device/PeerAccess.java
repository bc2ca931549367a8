package org.hbcast.device;

import java.util.function.IntUnaryOperator;

/**
 * Whether a node's CUDA ring can run on its GPUs. Each rank copies into its right neighbour's memory
 * through CUDA IPC; between two different GPUs that needs peer access, which some PCIe machines do not
 * give ({@code cudaDeviceCanAccessPeer} false). The ring then cannot work, and this says so at connect,
 * naming the GPUs and the ranks, instead of failing on the first copy.
 */
public final class PeerAccess {
    /** Whether GPU {@code device} can access GPU {@code peer}'s memory. */
    @FunctionalInterface
    public interface Query {
        boolean canAccess(int device, int peer);
    }

    private PeerAccess() {}

    /**
     * Why the ring of {@code ringSize} ranks, node rank {@code p} on GPU {@code deviceOf(p)}, cannot
     * copy from each rank to the next, or null when it can (ranks on one GPU need no peer access).
     */
    public static String refusal(final int ringSize, final IntUnaryOperator deviceOf, final Query query) {
        for (int p = 0; p < ringSize && ringSize > 1; p++) {
            final int right = (p + 1) % ringSize;
            final int from = deviceOf.applyAsInt(p);
            final int to = deviceOf.applyAsInt(right);
            if (from != to && !query.canAccess(from, to)) {
                return "GPU " + from + " (node rank " + p + ") cannot access GPU " + to + " (node rank " + right
                        + "): cudaDeviceCanAccessPeer is false, as on PCIe machines without peer-to-peer, so the"
                        + " node's CUDA IPC ring cannot copy between them; give a node's ranks GPUs that can"
                        + " (CUDA_VISIBLE_DEVICES) or broadcast host buffers";
            }
        }
        return null;
    }
}
