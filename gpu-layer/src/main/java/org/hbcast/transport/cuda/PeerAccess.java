package org.hbcast.transport.cuda;

import org.hbcast.device.CudaCalls;

/**
 * Whether a ring member may copy into its right neighbour's device memory. On boxes with several
 * GPUs, two of them may be unable to reach each other's memory ({@code cudaDeviceCanAccessPeer}
 * false, e.g. GPUs behind different PCIe root complexes without NVLink); an IPC copy between them
 * would then fail on the first call, or worse mid-call. The ring refuses at connect instead, naming
 * both devices, and the node fails there as a whole (the handshake agrees on errors).
 */
public final class PeerAccess {
    private PeerAccess() {}

    /**
     * Throws unless node rank {@code position}, on {@code device}, can write the memory of its right
     * neighbour node rank {@code right}, on {@code rightDevice}. The same device needs no peer access.
     *
     * @throws IllegalStateException naming both ranks and devices when it cannot
     */
    public static void require(
            final CudaCalls calls, final int position, final int device, final int right, final int rightDevice) {
        if (device == rightDevice || calls.canAccessPeer(device, rightDevice)) {
            return;
        }
        throw new IllegalStateException("node rank " + position + " works on CUDA device " + device
                + " and its right ring neighbour, node rank " + right + ", on device " + rightDevice
                + ", but device " + device + " cannot access device " + rightDevice
                + "'s memory (cudaDeviceCanAccessPeer is false: no NVLink or PCIe peer path between them). The"
                + " node's CUDA IPC ring needs peer access between neighbours: make the GPUs visible to the ranks"
                + " (CUDA_VISIBLE_DEVICES) only in groups that can reach each other, or broadcast host memory");
    }
}
