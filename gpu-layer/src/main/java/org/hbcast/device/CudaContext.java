package org.hbcast.device;

import jcuda.runtime.JCuda;

/**
 * Which device the calling thread works on. CUDA's current device is per host thread, and a copy
 * through an IPC mapping must run in the context that opened it, so every entry point that touches
 * device memory makes its buffer's device current first (cheap when it already is).
 */
public final class CudaContext {
    private CudaContext() {}

    /**
     * Makes {@code device} current for the calling thread.
     *
     * @throws CudaException when there is no such device (or no driver: the message then says why)
     */
    public static void use(final int device) {
        final CudaDevices devices = CudaDevices.get();
        if (!devices.available()) {
            throw new CudaException("no CUDA device: " + devices.unavailableReason());
        }
        if (device < 0 || device >= devices.count()) {
            throw new IllegalArgumentException(
                    "device " + device + " does not exist: this process sees " + devices.count() + " CUDA device(s)");
        }
        CudaException.check(JCuda.cudaSetDevice(device), "cudaSetDevice(" + device + ")");
    }
}
