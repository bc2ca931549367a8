package org.hbcast.device;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import jcuda.CudaException;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaDeviceProp;
import jcuda.runtime.cudaError;

/**
 * The part of {@link CudaDevices} that calls JCuda, apart so that {@code CudaDevices} loads (and is
 * verified) on a class path without JCuda: the host path asks it for devices at create, and JCuda is
 * optional. Used only once JCuda is known to be there.
 */
final class JCudaDeviceQuery {
    private JCudaDeviceQuery() {}

    /** The devices JCuda's runtime API reports, or none and why. Never throws. */
    static CudaDevices devices() {
        try {
            JCudaNatives.prepare();
        } catch (final IOException ex) {
            return new CudaDevices(List.of(), "JCuda natives: " + ex.getMessage());
        }
        try {
            JCuda.setExceptionsEnabled(false);
            final int[] count = new int[1];
            final int rc = JCuda.cudaGetDeviceCount(count);
            if (rc != cudaError.cudaSuccess) {
                return new CudaDevices(List.of(), "cudaGetDeviceCount: " + cudaError.stringFor(rc) + " (" + rc + ")");
            }
            if (count[0] == 0) {
                return new CudaDevices(List.of(), "the CUDA driver reports no devices");
            }
            final List<String> names = new ArrayList<>(count[0]);
            for (int d = 0; d < count[0]; d++) {
                final cudaDeviceProp prop = new cudaDeviceProp();
                final int prc = JCuda.cudaGetDeviceProperties(prop, d);
                names.add(prc == cudaError.cudaSuccess ? prop.getName() : "device " + d);
            }
            return new CudaDevices(names, "");
        } catch (final UnsatisfiedLinkError | CudaException | NoClassDefFoundError ex) {
            return new CudaDevices(List.of(), "JCuda natives could not be loaded: " + ex.getMessage());
        }
    }

    /** Prints JCuda's version, where its natives are, and the CUDA driver's and runtime's versions. */
    static void printVersions() {
        System.out.println("JCuda: " + IpcHandles.jcudaVersion() + ", natives "
                + (JCudaNatives.prepared() ? "in " + System.getProperty("java.io.tmpdir") : "not loaded"));
        if (!JCudaNatives.prepared()) {
            return;
        }
        try {
            final int[] driver = new int[1];
            final int[] runtime = new int[1];
            final int drc = JCuda.cudaDriverGetVersion(driver);
            final int rrc = JCuda.cudaRuntimeGetVersion(runtime);
            System.out.println("CUDA driver " + version(drc, driver[0]) + ", runtime " + version(rrc, runtime[0]));
        } catch (final UnsatisfiedLinkError | CudaException | NoClassDefFoundError ex) {
            System.out.println("CUDA versions: unknown (" + ex.getMessage() + ")");
        }
    }

    /** "12.4" from CUDA's 12040, or the error. */
    private static String version(final int rc, final int v) {
        return rc != cudaError.cudaSuccess
                ? "unknown (" + cudaError.stringFor(rc) + ")"
                : v / 1000 + "." + (v % 1000) / 10;
    }
}
