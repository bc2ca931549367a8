package org.hbcast.transport.cuda;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntUnaryOperator;
import java.util.stream.Stream;
import org.hbcast.device.CudaCalls;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.stage.StageException;
import org.hbcast.transport.shm.SharedSegment;

/**
 * A node of several GPUs in one process over a {@link FakeCuda} topology: each rank a process of its
 * own ({@link FakeCuda#process}, its GPUs numbered from a different one, as differing
 * {@code CUDA_VISIBLE_DEVICES} do), with its real {@link GpuGroupMember}: control blocks, links, ring
 * between GPUs. Calls start as the ranks would (each on its own thread, gathering records), then are
 * driven round-robin on the test's thread, so the fake's scheduler alone decides when copies land.
 */
final class FakeGpuNode implements AutoCloseable {
    private static final int MAX_ROUNDS = 2_000_000;

    final FakeCuda cuda;
    final GpuGroupMember[] members;
    final CudaCalls[] processes;
    final int[] devices;
    private final Path directory;
    private final byte[][] posted;
    private final CyclicBarrier barrier;
    private volatile boolean gatherAbandoned;

    /**
     * Ranks {@code 0 .. ranks - 1}, node rank {@code r} on physical GPU {@code gpuOf.applyAsInt(r)};
     * rank {@code r}'s process sees the GPUs rotated by {@code r}.
     */
    FakeGpuNode(final FakeCuda cuda, final int ranks, final IntUnaryOperator gpuOf, final int slots, final int chunk)
            throws IOException {
        this.cuda = cuda;
        final Path base = Files.isDirectory(SharedSegment.DEFAULT_DIRECTORY)
                ? SharedSegment.DEFAULT_DIRECTORY
                : Path.of(System.getProperty("java.io.tmpdir"));
        directory = Files.createTempDirectory(base, "hbcast-fake-gpus-");
        final int gpus = cuda.gpus();
        members = new GpuGroupMember[ranks];
        processes = new CudaCalls[ranks];
        devices = new int[ranks];
        posted = new byte[ranks][];
        barrier = new CyclicBarrier(ranks);
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
                members[r] = GpuGroupMember.create(processes[r], directory, r, groups, devices[r], slots, chunk);
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

    /**
     * Broadcasts {@code bytes} of {@code buffers[first]} into the others' and returns what each rank
     * saw: null for success, else its failure. A failing rank aborts its call as a call does; fails the
     * test if some rank neither finishes nor fails.
     */
    Throwable[] broadcast(final int first, final DeviceBuffer[] buffers, final long bytes, final int chunk)
            throws InterruptedException {
        final Throwable[] outcome = new Throwable[members.length];
        final org.hbcast.stage.Stage[] calls = new org.hbcast.stage.Stage[members.length];
        final List<Thread> starters = new ArrayList<>();
        for (int i = 0; i < members.length; i++) {
            final int rank = i;
            final Thread starter = new Thread(() -> {
                try {
                    calls[rank] = members[rank].start(
                            buffers[rank], bytes, chunk, first, false, (mine, all) -> gather(rank, mine, all));
                } catch (final RuntimeException ex) {
                    outcome[rank] = ex;
                }
            });
            starter.start();
            starters.add(starter);
        }
        for (final Thread starter : starters) {
            starter.join(TimeUnit.MINUTES.toMillis(1));
            if (starter.isAlive()) {
                throw new AssertionError("a rank hung in the start of its call");
            }
        }
        if (gatherAbandoned) {
            throw new AssertionError("a rank waited in the gather for a rank that never joined it");
        }
        final boolean[] finished = new boolean[members.length];
        for (int i = 0; i < members.length; i++) {
            finished[i] = outcome[i] != null;
        }
        for (int round = 0; round < MAX_ROUNDS; round++) {
            boolean all = true;
            for (int i = 0; i < members.length; i++) {
                if (finished[i]) {
                    continue;
                }
                try {
                    calls[i].progress();
                    finished[i] = calls[i].isDone();
                } catch (final RuntimeException ex) {
                    outcome[i] = ex;
                    finished[i] = true;
                    calls[i].abort();
                }
                all &= finished[i];
            }
            if (all) {
                return outcome;
            }
        }
        final StringBuilder stuck = new StringBuilder("broadcast hung after " + MAX_ROUNDS + " rounds:");
        for (int i = 0; i < members.length; i++) {
            if (!finished[i]) {
                stuck.append(" rank ")
                        .append(i)
                        .append(" waits for ")
                        .append(calls[i].describeWait())
                        .append(';');
            }
        }
        throw new AssertionError(stuck.toString());
    }

    private void gather(final int me, final byte[] mine, final byte[] all) {
        posted[me] = mine.clone();
        await();
        for (int r = 0; r < posted.length; r++) {
            System.arraycopy(posted[r], 0, all, r * mine.length, mine.length);
        }
        await();
    }

    private void await() {
        try {
            barrier.await(1, TimeUnit.MINUTES);
        } catch (final InterruptedException | BrokenBarrierException | TimeoutException ex) {
            gatherAbandoned = true;
            throw new StageException("gather failed: " + ex);
        }
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
        try (Stream<Path> files = Files.list(directory)) {
            for (final Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(directory);
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
