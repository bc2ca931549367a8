package org.hbcast.bench.soak;

import java.util.Locale;
import org.hbcast.device.CudaDevices;

/** The memory kinds a soak can draw from ({@code --kinds}). */
enum SoakKind {
    /** A fresh Java primitive array per call. */
    ARRAYS,
    /** One reused direct ByteBuffer, whatever the datatype. */
    BUFFERS,
    /** Typed views (IntBuffer, DoubleBuffer...) of one reused direct buffer. */
    VIEWS,
    /** GPU buffers: not wired into the soak yet (see {@link SoakMemory}). */
    DEVICE;

    static SoakKind parse(String text) {
        String t = text.trim().toUpperCase(Locale.ROOT);
        for (SoakKind k : values()) {
            if (k.name().equals(t) || (k.name().equals(t + "S"))) {
                return k;
            }
        }
        throw new IllegalArgumentException("memory kind '" + text + "' is not one of arrays, buffers, views, device");
    }

    /** The memory of this kind, for messages of up to {@code maxBytes}. */
    SoakMemory open(int maxBytes) {
        if (this == DEVICE) {
            throw new IllegalArgumentException("memory kind device: " + deviceStatus());
        }
        return new HostMemory(this, maxBytes);
    }

    /** What the soak can do with GPU memory on this machine, for its report. */
    static String deviceStatus() {
        CudaDevices cuda = CudaDevices.get();
        return cuda.available()
                ? "not available (" + cuda.count() + " CUDA devices, but the soak has no device kind yet)"
                : "not available (" + cuda.unavailableReason() + ")";
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
