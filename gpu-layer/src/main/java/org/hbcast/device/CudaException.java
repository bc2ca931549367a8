package org.hbcast.device;

import jcuda.runtime.cudaError;

/** A CUDA runtime call failed; the message names the call, the error and what it was for. */
public final class CudaException extends RuntimeException {
    private final int error;

    /** Creates one for runtime error {@code error} returned by {@code call}. */
    public CudaException(final String call, final int error) {
        super(call + " failed: " + cudaError.stringFor(error) + " (" + error + ")");
        this.error = error;
    }

    /** Creates one for a CUDA problem that is not a single call's error code. */
    public CudaException(final String message) {
        super(message);
        this.error = cudaError.cudaErrorUnknown;
    }

    /** The {@code cudaError} code. */
    public int error() {
        return error;
    }

    /** Throws unless {@code rc} is {@code cudaSuccess}. JCuda's own exceptions stay off (see {@link CudaDevices}). */
    public static void check(final int rc, final String call) {
        if (rc != cudaError.cudaSuccess) {
            throw new CudaException(call, rc);
        }
    }
}
