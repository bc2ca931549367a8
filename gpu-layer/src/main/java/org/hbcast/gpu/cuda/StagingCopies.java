package org.hbcast.gpu.cuda;

import jcuda.runtime.JCuda;
import jcuda.runtime.cudaMemcpyKind;

/**
 * Segment-by-segment asynchronous copies between a device buffer and pinned host memory, for a node
 * leader that stages device data for the network: device to host at the root (each segment may be
 * sent as soon as its copy completes), host to device at the other leaders (each segment may enter
 * the node's ring as soon as its copy completes). Copies run on their own stream, so they overlap
 * with the network and with the ring's copies; at most {@code window} are in flight.
 *
 * <p>A non-blocking state machine like the ring: {@link #start}, then {@link #issue} as segments
 * become available and {@link #poll} until {@link #isDone()}. No allocation after construction.
 */
public final class StagingCopies implements AutoCloseable
{
    private final CudaStream stream;
    private final EventRing events;
    private final DevicePointer device = new DevicePointer();
    private final DevicePointer host = new DevicePointer();
    private boolean toHost;
    private DeviceBuffer deviceBuffer;
    private long hostAddress;
    private long totalBytes;
    private int segmentBytes;
    private int segments;
    private long issued;
    private long completed;
    private long base;

    /** Copies on a new stream of {@code deviceId}, at most {@code window} in flight. */
    public StagingCopies(final int deviceId, final int window)
    {
        this.stream = new CudaStream(deviceId);
        this.events = new EventRing(deviceId, window);
    }

    /**
     * Prepares the copies of one broadcast.
     *
     * @param toHost       true for device to host, false for host to device
     * @param buffer       the device side
     * @param hostAddress  the pinned host side (at least {@code bytes})
     * @param bytes        bytes to copy, from offset 0 of both
     * @param segmentBytes bytes per segment (the last one shorter)
     */
    public void start(final boolean toHost, final DeviceBuffer buffer, final long hostAddress, final long bytes,
        final int segmentBytes)
    {
        if (!isDone())
        {
            throw new IllegalStateException("previous staging has not finished");
        }
        if (segmentBytes <= 0 || bytes < 0 || bytes > buffer.bytes())
        {
            throw new IllegalArgumentException("cannot stage " + bytes + " bytes in segments of " + segmentBytes +
                " through " + buffer);
        }
        this.toHost = toHost;
        this.deviceBuffer = buffer;
        this.hostAddress = hostAddress;
        this.totalBytes = bytes;
        this.segmentBytes = segmentBytes;
        this.segments = (int)((bytes + segmentBytes - 1) / segmentBytes);
        // Event sequence numbers keep counting across broadcasts; segment s of this one is base + s.
        this.base = issued;
    }

    /** Starts the copies of segments below {@code available} that the window allows. Returns how many. */
    public int issue(final int available)
    {
        final int limit = Math.min(available, segments);
        int started = 0;
        while (issued - base < limit && issued - completed < events.size())
        {
            final int segment = (int)(issued - base);
            final long offset = (long)segment * segmentBytes;
            final long length = Math.min(segmentBytes, totalBytes - offset);
            device.moveTo(deviceBuffer.address() + offset);
            host.moveTo(hostAddress + offset);
            if (toHost)
            {
                CudaException.check(JCuda.cudaMemcpyAsync(host, device, length, cudaMemcpyKind.cudaMemcpyDeviceToHost,
                    stream.stream()), "cudaMemcpyAsync device to pinned host");
            }
            else
            {
                CudaException.check(JCuda.cudaMemcpyAsync(device, host, length, cudaMemcpyKind.cudaMemcpyHostToDevice,
                    stream.stream()), "cudaMemcpyAsync pinned host to device");
            }
            events.record(issued, stream);
            issued++;
            started++;
        }
        return started;
    }

    /** Notes completed copies; returns how many completed now. */
    public int poll()
    {
        int done = 0;
        while (completed < issued && events.isComplete(completed))
        {
            completed++;
            done++;
        }
        return done;
    }

    /** Leading segments whose copies have completed. */
    public int segmentsDone()
    {
        return (int)(completed - base);
    }

    /** Segments of this broadcast. */
    public int segmentCount()
    {
        return segments;
    }

    /** True when every segment of the current broadcast has been copied (at once before the first). */
    public boolean isDone()
    {
        return completed == issued && completed - base == segments;
    }

    /** Waits for copies in flight (after a failure), so no late copy lands in memory about to be reused. */
    public void drain()
    {
        stream.synchronize();
        completed = issued;
        base = issued - segments;
    }

    /** Waits for copies in flight, then destroys the events and the stream. */
    @Override
    public void close()
    {
        try
        {
            events.close();
        }
        finally
        {
            stream.close();
        }
    }
}
