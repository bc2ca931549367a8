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
import java.util.stream.Stream;
import org.hbcast.device.CudaException;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.engine.RingPipeline;
import org.hbcast.stage.StageException;
import org.hbcast.transport.shm.SharedSegment;

/**
 * A node's CUDA IPC ring in one process over a {@link FakeCuda}: every member's real control block,
 * slots, link ends and pipeline, started as the ranks would (each on its own thread, swapping
 * descriptors with its neighbours) and then driven round-robin on the test's thread, so the fake's
 * scheduler alone decides the order in which copies land.
 */
final class FakeRing implements AutoCloseable {
    /** Progress calls after which a broadcast that is still running counts as hung. */
    private static final int MAX_ROUNDS = 2_000_000;

    final FakeCuda cuda;
    final CudaRingMember[] members;
    private final Path directory;
    private final byte[][] posted;
    private final CyclicBarrier barrier;
    private volatile boolean swapAbandoned;

    FakeRing(final FakeCuda cuda, final int size, final int slotCount, final int chunkBytes) throws IOException {
        this.cuda = cuda;
        final Path base = Files.isDirectory(SharedSegment.DEFAULT_DIRECTORY)
                ? SharedSegment.DEFAULT_DIRECTORY
                : Path.of(System.getProperty("java.io.tmpdir"));
        directory = Files.createTempDirectory(base, "hbcast-fake-cuda-");
        members = new CudaRingMember[size];
        posted = new byte[size][];
        barrier = new CyclicBarrier(size);
        final String[] paths = new String[size];
        final byte[] descriptors = new byte[size * IpcDescriptor.BYTES];
        for (int i = 0; i < size; i++) {
            members[i] = CudaRingMember.create(cuda, directory, i, size, 0, slotCount, chunkBytes);
            paths[i] = members[i].controlPath().toString();
            System.arraycopy(members[i].slotDescriptor(), 0, descriptors, i * IpcDescriptor.BYTES, IpcDescriptor.BYTES);
        }
        for (final CudaRingMember member : members) {
            member.connect(paths, descriptors);
        }
        for (final CudaRingMember member : members) {
            member.unlinkControl();
        }
    }

    /** One buffer of {@code bytes} per rank on the fake device, filled with {@code 0x5A}. */
    DeviceBuffer[] buffers(final long bytes) {
        final DeviceBuffer[] buffers = new DeviceBuffer[members.length];
        for (int i = 0; i < buffers.length; i++) {
            buffers[i] = DeviceBuffer.allocate(bytes, 0, cuda);
            final byte[] fill = new byte[(int) bytes];
            Arrays.fill(fill, (byte) 0x5A);
            cuda.write(buffers[i].address(), fill);
        }
        return buffers;
    }

    /**
     * Broadcasts {@code bytes} of {@code buffers[root]} into the others' and returns what each rank
     * saw: null for success, else its failure. A failing rank aborts its ring as a call does; fails
     * the test if some rank neither finishes nor fails.
     */
    Throwable[] broadcast(final int root, final DeviceBuffer[] buffers, final long bytes, final int chunkBytes)
            throws InterruptedException {
        final Throwable[] outcome = new Throwable[members.length];
        @SuppressWarnings("unchecked")
        final RingPipeline<DeviceBuffer>[] rings = new RingPipeline[members.length];
        final List<Thread> starters = new ArrayList<>();
        for (int i = 0; i < members.length; i++) {
            final int rank = i;
            final Thread starter = new Thread(() -> {
                try {
                    rings[rank] = members[rank].start(
                            buffers[rank], bytes, chunkBytes, root, false, (out, in) -> swap(rank, out, in));
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
        if (swapAbandoned) {
            throw new AssertionError("a rank waited in the descriptor swap for a neighbour that never joined it");
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
                    rings[i].progress();
                    finished[i] = rings[i].isDone();
                } catch (final RuntimeException ex) {
                    outcome[i] = ex;
                    finished[i] = true;
                    rings[i].abort();
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
                        .append(rings[i].describeWait())
                        .append(';');
            }
        }
        throw new AssertionError(stuck.toString());
    }

    /** The neighbour exchange of a call: every rank posts, all meet, each takes its right neighbour's. */
    private void swap(final int me, final byte[] toLeft, final byte[] fromRight) {
        posted[me] = toLeft.clone();
        await();
        final byte[] right = posted[(me + 1) % members.length];
        System.arraycopy(right, 0, fromRight, 0, fromRight.length);
        await();
    }

    private void await() {
        try {
            barrier.await(1, TimeUnit.MINUTES);
        } catch (final InterruptedException | BrokenBarrierException | TimeoutException ex) {
            swapAbandoned = true;
            throw new StageException("neighbour exchange failed: " + ex);
        }
    }

    /**
     * Closes as the node does, two-phase: everyone unmaps, then (the barrier) everyone frees. Every
     * step runs even when one fails (a sticky error after an injected failure); the first failure is
     * thrown once the directory is gone.
     */
    @Override
    public void close() throws IOException {
        final Closer closer = new Closer();
        for (final CudaRingMember member : members) {
            closer.run(member::unmapPeers);
        }
        for (final CudaRingMember member : members) {
            closer.run(member::close);
        }
        try (Stream<Path> files = Files.list(directory)) {
            for (final Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
        }
        Files.deleteIfExists(directory);
        closer.rethrow();
    }

    /** As {@link #close}, for a ring whose device reported an error: the sticky error may show again. */
    void closeAfterFailure() throws IOException {
        try {
            close();
        } catch (final CudaException sticky) {
            // Expected: an injected device failure stays with its stream, as it does on a GPU.
        }
    }

    /** Frees the buffers; the fake records freeing memory under a copy still in flight or still mapped. */
    void free(final DeviceBuffer[] buffers) {
        for (final DeviceBuffer buffer : buffers) {
            buffer.close();
        }
    }
}
