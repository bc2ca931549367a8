package org.hbcast.device;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * What CUDA devices this process can use, probed once through JCuda's runtime API.
 *
 * <p>Never throws: on a machine without a driver (JCuda's statically linked runtime then answers
 * error 35, insufficient driver) or without loadable natives the probe reports no devices and says
 * why, so every host path keeps working and GPU tests can say why they were skipped.
 */
public final class CudaDevices {
    /** Where a loaded NVIDIA driver shows itself on Linux (WSL's through /dev/dxg). */
    private static final String[] DRIVER_MARKS = {"/proc/driver/nvidia", "/dev/nvidiactl", "/dev/dxg"};
    // After DRIVER_MARKS: static fields are set in order.
    private static final CudaDevices PROBED = probe();

    private final List<String> names;
    private final String unavailableReason;

    CudaDevices(final List<String> names, final String unavailableReason) {
        this.names = List.copyOf(names);
        this.unavailableReason = unavailableReason;
    }

    /** The devices of this process, probed on first use. */
    public static CudaDevices get() {
        return PROBED;
    }

    /**
     * Prints the devices (or why there are none), the CUDA driver's and runtime's versions as JCuda
     * reports them, and where JCuda's natives were put: a quick check of a node, next to
     * {@code nvidia-smi -L} in scripts/gpu-test (exit status 0 either way).
     */
    public static void main(final String[] args) {
        final CudaDevices devices = get();
        System.out.println(
                devices.available()
                        ? "CUDA devices: " + devices.count() + " " + devices.names()
                        : "CUDA devices: none (" + devices.unavailableReason() + ")");
        if (jcudaOnClassPath()) {
            JCudaDeviceQuery.printVersions();
        }
    }

    /** True when at least one CUDA device can be used. */
    public boolean available() {
        return !names.isEmpty();
    }

    /** Number of usable devices; 0 without a driver. */
    public int count() {
        return names.size();
    }

    /** Device names in device order, for example "NVIDIA H100 80GB HBM3". */
    public List<String> names() {
        return names;
    }

    /** Why no device can be used; empty when {@link #available()}. */
    public String unavailableReason() {
        return unavailableReason;
    }

    /** The device a rank uses: node-local ranks are spread round-robin, so several may share one GPU. */
    public int deviceForLocalRank(final int localRank) {
        if (!available()) {
            throw new IllegalStateException("no CUDA device: " + unavailableReason);
        }
        if (localRank < 0) {
            throw new IllegalArgumentException("local rank must be >= 0: " + localRank);
        }
        return localRank % names.size();
    }

    private static CudaDevices probe() {
        if (isLinux() && Arrays.stream(DRIVER_MARKS).noneMatch(p -> Files.exists(Path.of(p)))) {
            // Loading JCuda only to hear "insufficient driver" costs about a second at start-up.
            return new CudaDevices(List.of(), "no NVIDIA driver (none of " + String.join(", ", DRIVER_MARKS) + ")");
        }
        if (!jcudaOnClassPath()) {
            return new CudaDevices(List.of(), MISSING_JCUDA);
        }
        return JCudaDeviceQuery.devices();
    }

    /**
     * JCuda is an optional dependency: a program that broadcasts host memory only need not have it,
     * and then no class of it may be touched.
     */
    private static boolean jcudaOnClassPath() {
        try {
            Class.forName("jcuda.runtime.JCuda", false, CudaDevices.class.getClassLoader());
            return true;
        } catch (final ClassNotFoundException | LinkageError ex) {
            return false;
        }
    }

    static final String MISSING_JCUDA = "JCuda is not on the class path: device buffers need org.jcuda:jcuda and"
            + " org.jcuda:jcuda-natives (classifier linux-x86_64), optional dependencies of hbcast that a"
            + " program using GPU memory adds itself";

    private static boolean isLinux() {
        return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux");
    }
}
