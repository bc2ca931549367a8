package org.hbcast.transport.cuda;

import java.io.IOException;
import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import org.hbcast.device.CudaCalls;
import org.hbcast.device.DeviceBuffer;

/**
 * A node of several GPUs in one process over a {@link FakeCuda} topology: each rank a process of its
 * own ({@link FakeCuda#process}, its GPUs numbered from a different one, as differing
 * {@code CUDA_VISIBLE_DEVICES} do), with its real {@link GpuGroupMember}: control blocks, links, ring
 * between GPUs; its calls driven by a {@link FakeCallDriver} (the ranks gathering every rank's record
 * as they start).
 */
final class FakeGpuNode implements FakeNode, AutoCloseable {
    final FakeCuda cuda;
    final GpuGroupMember[] members;
    final CudaCalls[] processes;
    final int[] devices;
    private final FakeCallDriver driver;

    /**
     * Ranks {@code 0 .. ranks - 1}, node rank {@code r} on physical GPU {@code gpuOf.applyAsInt(r)};
     * rank {@code r}'s process sees the GPUs rotated by {@code r}.
     */
    FakeGpuNode(final FakeCuda cuda, final int ranks, final IntUnaryOperator gpuOf, final int slots, final int chunk)
            throws IOException {
        this.cuda = cuda;
        driver = new FakeCallDriver("hbcast-fake-gpus-", ranks);
        final int gpus = cuda.gpus();
        members = new GpuGroupMember[ranks];
        processes = new CudaCalls[ranks];
        devices = new int[ranks];
        final String[] placements = new String[ranks];
        for (int r = 0; r < ranks; r++) {
            final int[] visible = new int[gpus];
            for (int i = 0; i < gpus; i++) {
                visible[i] = (i + r) % gpus;
            }
            processes[r] = cuda.process(visible);
            devices[r] = Math.floorMod(gpuOf.applyAsInt(r) - r, gpus);
            placements[r] = GpuGroupMember.placement(processes[r], devices[r]);
        }
        final GpuGroups groups = GpuGroupMember.groups(placements);
        final String[] descriptors = new String[ranks];
        try {
            for (int r = 0; r < ranks; r++) {
                members[r] = GpuGroupMember.create(processes[r], driver.directory, r, groups, devices[r], slots, chunk);
                descriptors[r] = members[r].descriptor();
            }
            for (final GpuGroupMember member : members) {
                member.connect(descriptors);
            }
            for (final GpuGroupMember member : members) {
                member.unlinkControl();
            }
        } catch (final IOException | RuntimeException ex) {
            closeQuietly();
            throw ex;
        }
    }

    /**
     * Where node rank {@code r} of a node of {@code layout[0]} GPUs with {@code layout[1]} ranks each
     * runs: GPU {@code r mod gpus} when {@code interleaved}, else the ranks of a GPU side by side.
     */
    static IntUnaryOperator place(final int[] layout, final boolean interleaved) {
        final int gpus = layout[0];
        final int perGpu = layout[1];
        return interleaved ? r -> r % gpus : r -> r / perGpu;
    }

    @Override
    public FakeCuda cuda() {
        return cuda;
    }

    GpuGroups groups() {
        return members[0].groups();
    }

    /** One buffer of {@code bytes} per rank on its GPU, filled with {@code 0x5A}. */
    DeviceBuffer[] buffers(final long bytes) {
        final DeviceBuffer[] buffers = new DeviceBuffer[members.length];
        for (int r = 0; r < buffers.length; r++) {
            buffers[r] = buffer(r, bytes);
        }
        return buffers;
    }

    /** A buffer of {@code bytes} of rank {@code r}, filled with {@code 0x5A}. */
    DeviceBuffer buffer(final int r, final long bytes) {
        final DeviceBuffer buffer = DeviceBuffer.allocate(bytes, devices[r], processes[r]);
        final byte[] fill = new byte[(int) bytes];
        Arrays.fill(fill, (byte) 0x5A);
        cuda.write(buffer.address(), fill);
        return buffer;
    }

    /** Copies queued so far by rank {@code r}'s process. */
    long copies(final int r) {
        return FakeCuda.copiesOf(processes[r]);
    }

    @Override
    public Throwable[] broadcast(final int first, final DeviceBuffer[] buffers, final long bytes, final int chunk)
            throws InterruptedException {
        return driver.run(rank -> members[rank].start(buffers[rank], bytes, chunk, first, false, gather(rank)));
    }

    /**
     * As {@link #broadcast}, where node rank {@code refusing} gives the call up before starting it
     * ({@link GpuGroupMember#refuse}), as a rank whose staging memory could not be allocated does.
     */
    Throwable[] broadcastRefusedBy(
            final int refusing, final int first, final DeviceBuffer[] buffers, final long bytes, final int chunk)
            throws InterruptedException {
        return driver.run(rank -> {
            if (rank == refusing) {
                members[rank].refuse(gather(rank));
                throw new IllegalStateException("node rank " + rank + " gave up before starting");
            }
            return members[rank].start(buffers[rank], bytes, chunk, first, false, gather(rank));
        });
    }

    /** Rank {@code me}'s side of a call's all-gather of records. */
    private GroupExchange gather(final int me) {
        return (mine, all) -> driver.exchange(me, mine, posted -> {
            for (int r = 0; r < posted.length; r++) {
                System.arraycopy(posted[r], 0, all, r * mine.length, mine.length);
            }
        });
    }

    /** Closes as the node does, two-phase: everyone unmaps, then (the barrier) everyone frees. */
    @Override
    public void close() throws IOException {
        final Closer closer = new Closer();
        for (final GpuGroupMember member : members) {
            if (member != null) {
                closer.run(member::unmapPeers);
            }
        }
        for (final GpuGroupMember member : members) {
            if (member != null) {
                closer.run(member::close);
            }
        }
        driver.deleteDirectory();
        closer.rethrow();
    }

    private void closeQuietly() {
        try {
            close();
        } catch (final IOException | RuntimeException ignored) {
            // The set-up's failure is the one to report.
        }
    }

    /** As {@link #close}, for a node whose device reported an error: the sticky error may show again. */
    void closeAfterFailure() throws IOException {
        try {
            close();
        } catch (final RuntimeException sticky) {
            // Expected: an injected device failure stays with its stream, as it does on a GPU.
        }
    }
}
