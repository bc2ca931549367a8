package org.hbcast.bench.gpu;

import java.util.Arrays;
import java.util.Locale;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaMemcpyKind;
import org.hbcast.device.CudaContext;
import org.hbcast.device.CudaDevices;
import org.hbcast.device.CudaException;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.PinnedBuffer;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;

/**
 * The host–GPU link the cost model prices staging with ({@link LinkKind#PCIE}), measured: pinned
 * device-to-host and host-to-device copies of a few sizes in this process, each the median of a few
 * copies after a warm-up, and the straight line through the smallest and the largest size of the two
 * directions' mean (the model charges a staged call one copy each way). {@code Calibrate} records it
 * where a GPU exists; {@code DeviceProbe} prints it.
 */
public final class PcieRate {
    /** Bytes of the copies timed: the line runs through the first and the last. */
    static final int[] SIZES = {64 << 10, 1 << 20, 16 << 20};

    private static final int WARM_UP = 2;
    private static final int TIMED = 7;

    /**
     * What one measurement found.
     *
     * @param sizes bytes of each size timed
     * @param deviceToHost seconds of one copy at each size, device to host
     * @param hostToDevice seconds of one copy at each size, host to device
     * @param link the fitted link, or null where the line is not one a link can have
     */
    public record Measured(long[] sizes, double[] deviceToHost, double[] hostToDevice, LinkCalibration link) {
        /** One line: the fitted figures and each direction's rate at the largest size. */
        public String describe() {
            int last = sizes.length - 1;
            return String.format(
                    Locale.ROOT,
                    "PCIe (pinned, one process): %s; at %d B device to host %.2f GB/s, host to device %.2f GB/s",
                    link == null
                            ? "no plausible line through the timings"
                            : String.format(
                                    Locale.ROOT,
                                    "start-up %.2f us, %.2f GB/s",
                                    link.startupSeconds() * 1e6,
                                    link.bytesPerSecond() / 1e9),
                    sizes[last],
                    sizes[last] / deviceToHost[last] / 1e9,
                    sizes[last] / hostToDevice[last] / 1e9);
        }
    }

    private PcieRate() {}

    /** Measures on this rank's GPU {@code device}; null where no CUDA device can be used. */
    public static Measured measure(int device) {
        if (!CudaDevices.get().available()) {
            return null;
        }
        CudaContext.use(device);
        int largest = SIZES[SIZES.length - 1];
        long[] sizes = Arrays.stream(SIZES).asLongStream().toArray();
        double[] d2h = new double[SIZES.length];
        double[] h2d = new double[SIZES.length];
        try (PinnedBuffer host = PinnedBuffer.allocate(largest);
                DeviceBuffer gpu = DeviceBuffer.allocate(largest, device)) {
            Pointer hostPointer = Pointer.to(host.buffer());
            for (int s = 0; s < SIZES.length; s++) {
                d2h[s] = copySeconds(hostPointer, gpu.pointer(), SIZES[s], cudaMemcpyKind.cudaMemcpyDeviceToHost);
                h2d[s] = copySeconds(gpu.pointer(), hostPointer, SIZES[s], cudaMemcpyKind.cudaMemcpyHostToDevice);
            }
        }
        return new Measured(sizes, d2h, h2d, fit(sizes, d2h, h2d));
    }

    /** The median seconds of one synchronous copy of {@code bytes}. */
    private static double copySeconds(Pointer to, Pointer from, int bytes, int kind) {
        double[] t = new double[TIMED];
        for (int i = -WARM_UP; i < TIMED; i++) {
            long t0 = System.nanoTime();
            CudaException.check(JCuda.cudaMemcpy(to, from, bytes, kind), "cudaMemcpy");
            // A copy from pinned memory may return before it has landed: the copy's time is its completion's.
            CudaException.check(JCuda.cudaDeviceSynchronize(), "cudaDeviceSynchronize");
            if (i >= 0) {
                t[i] = (System.nanoTime() - t0) / 1e9;
            }
        }
        Arrays.sort(t);
        return t[TIMED / 2];
    }

    /**
     * The link through the smallest and the largest size of the two directions' mean time, or null
     * where that line is not one a link can have (a larger copy no slower, a negative start-up kept
     * at 0 otherwise). Pure.
     */
    static LinkCalibration fit(long[] sizes, double[] deviceToHost, double[] hostToDevice) {
        int last = sizes.length - 1;
        double small = (deviceToHost[0] + hostToDevice[0]) / 2;
        double large = (deviceToHost[last] + hostToDevice[last]) / 2;
        if (!(large > small) || sizes[last] <= sizes[0]) {
            return null;
        }
        double bandwidth = (sizes[last] - sizes[0]) / (large - small);
        double startup = Math.max(0, small - sizes[0] / bandwidth);
        if (!LinkCalibration.plausibleBandwidth(bandwidth) || !LinkCalibration.plausibleStartup(startup)) {
            return null;
        }
        return new LinkCalibration(LinkKind.PCIE, startup, bandwidth, "measured");
    }
}
