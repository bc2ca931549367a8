package org.hbcast.agent;

import jcuda.runtime.JCuda;
import org.hbcast.GpuNatives;

/**
 * A GPU program's start as users write it: JCuda first (the device count), hbcast later. With
 * {@code prepare} it calls {@link GpuNatives#prepare()} before touching JCuda, as documented.
 * Prints one line when JCuda's runtime library loaded; needs no GPU (no driver gives error 35).
 */
public final class JCudaFirstProgram {
    private JCudaFirstProgram() {}

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals("prepare")) {
            GpuNatives.prepare();
        }
        int[] devices = new int[1];
        int result = JCuda.cudaGetDeviceCount(devices);
        System.out.println("JCuda loaded: cudaGetDeviceCount returned " + result + ", " + devices[0] + " devices");
    }
}
