package org.hbcast.transport.cuda;

import org.hbcast.device.CudaCalls;
import org.hbcast.device.CudaStream;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.JCudaCalls;
import org.hbcast.stage.Chunks;
import org.hbcast.stage.Stage;

/**
 * A node leader's staging of device data for the network, as a {@link Stage}: chunk-by-chunk
 * asynchronous copies between a device buffer and pinned host memory, device to host at the root
 * (each chunk may be sent as soon as its copy completes), host to device at the other leaders (fed
 * by the tree: each chunk may enter the node's ring as soon as its copy completes). Copies run on
 * their own stream, so they overlap with the network and with the ring's copies; at most
 * {@code window} are in flight. No allocation after construction.
 */
public final class StagingCopies implements Stage, AutoCloseable {
    private final CudaStream stream;
    private final EventRing events;
    private final CudaCalls calls;
    private boolean toHost;
    private DeviceBuffer deviceBuffer;
    private long hostAddress;
    private long totalBytes;
    private int chunkBytes;
    private int chunks;
    private boolean fed;
    private int available;
    private long issued;
    private long completed;
    private long base;

    /** Copies on a new stream of {@code deviceId}, at most {@code window} in flight. */
    public StagingCopies(final int deviceId, final int window) {
        this(JCudaCalls.INSTANCE, deviceId, window);
    }

    /** As {@link #StagingCopies(int, int)}, through {@code calls}. */
    public StagingCopies(final CudaCalls calls, final int deviceId, final int window) {
        this.calls = calls;
        this.stream = new CudaStream(calls, deviceId);
        try {
            this.events = new EventRing(calls, deviceId, window);
        } catch (final RuntimeException ex) {
            stream.close();
            throw ex;
        }
    }

    /**
     * Prepares the copies of one broadcast.
     *
     * @param toHost       true for device to host, false for host to device
     * @param buffer       the device side
     * @param hostAddress  the pinned host side (at least {@code bytes})
     * @param bytes        bytes to copy, from offset 0 of both
     * @param chunkBytes   bytes per chunk (the last one shorter)
     * @param fed          true when the source fills chunk by chunk and {@link #feed} releases them
     */
    public void start(
            final boolean toHost,
            final DeviceBuffer buffer,
            final long hostAddress,
            final long bytes,
            final int chunkBytes,
            final boolean fed) {
        if (!isDone()) {
            throw new IllegalStateException("previous staging has not finished");
        }
        if (bytes > buffer.bytes()) {
            throw new IllegalArgumentException("cannot stage " + bytes + " bytes through " + buffer);
        }
        this.toHost = toHost;
        this.deviceBuffer = buffer;
        this.hostAddress = hostAddress;
        this.totalBytes = bytes;
        this.chunks = Chunks.count(bytes, chunkBytes);
        this.chunkBytes = chunkBytes;
        this.fed = fed;
        this.available = fed ? 0 : chunks;
        // Event sequence numbers keep counting across broadcasts; chunk c of this one is base + c.
        this.base = issued;
    }

    /** Chunks {@code [0, ready)} of the source are in place and may be copied. */
    @Override
    public void feed(final int ready) {
        if (!fed) {
            throw new IllegalStateException("these staging copies were not started as fed");
        }
        if (ready < available || ready > chunks) {
            throw new IllegalArgumentException(
                    "chunks fed must grow within [" + available + ", " + chunks + "]: " + ready);
        }
        available = ready;
    }

    /** Starts the copies the window allows and notes those completed; returns how many of each. */
    @Override
    public int progress() {
        return issue() + poll();
    }

    private int issue() {
        int started = 0;
        while (issued - base < available && issued - completed < events.size()) {
            final int chunk = (int) (issued - base);
            final long offset = Chunks.offset(chunk, chunkBytes);
            final long length = Chunks.length(chunk, chunkBytes, totalBytes);
            final long device = deviceBuffer.address() + offset;
            final long host = hostAddress + offset;
            if (toHost) {
                calls.copyAsync(host, device, length, CudaCalls.CopyKind.DEVICE_TO_HOST, stream.handle());
            } else {
                calls.copyAsync(device, host, length, CudaCalls.CopyKind.HOST_TO_DEVICE, stream.handle());
            }
            events.record(issued, stream);
            issued++;
            started++;
        }
        return started;
    }

    private int poll() {
        int done = 0;
        while (completed < issued && events.isComplete(completed)) {
            completed++;
            done++;
        }
        return done;
    }

    /** Leading chunks whose copies have completed. */
    @Override
    public int chunksReady() {
        return (int) (completed - base);
    }

    @Override
    public int chunkCount() {
        return chunks;
    }

    /** True when every chunk of the current broadcast has been copied (at once before the first). */
    @Override
    public boolean isDone() {
        return completed == issued && completed - base == chunks;
    }

    @Override
    public String describeWait() {
        return (available < chunks && completed - base == available
                        ? "chunk " + available + " of " + chunks + " to stage"
                        : "copies of staged chunks")
                + (toHost ? " from the GPU to host memory" : " from host memory to the GPU");
    }

    /** Waits for copies in flight (after a failure), so no late copy lands in memory about to be reused. */
    @Override
    public void abort() {
        stream.synchronize();
        completed = issued;
        base = issued - chunks;
    }

    @Override
    public String toString() {
        return "staging copies " + (toHost ? "to host" : "to the GPU");
    }

    /** Waits for copies in flight, then destroys the events and the stream. */
    @Override
    public void close() {
        try {
            events.close();
        } finally {
            stream.close();
        }
    }
}
