package org.hbcast.transport.cuda;

import java.io.IOException;
import java.util.Arrays;
import org.hbcast.device.CudaException;
import org.hbcast.device.DeviceBuffer;

/**
 * A node's CUDA IPC ring in one process over a {@link FakeCuda}: every member's real control block,
 * slots, link ends and pipeline, its calls driven by a {@link FakeCallDriver} (the ranks swapping
 * descriptors with their neighbours as they start).
 */
final class FakeRing implements FakeNode, AutoCloseable {
    final FakeCuda cuda;
    final CudaRingMember[] members;
    private final FakeCallDriver driver;

    FakeRing(final FakeCuda cuda, final int size, final int slotCount, final int chunkBytes) throws IOException {
        this.cuda = cuda;
        driver = new FakeCallDriver("hbcast-fake-cuda-", size);
        members = new CudaRingMember[size];
        final String[] paths = new String[size];
        final byte[] descriptors = new byte[size * IpcDescriptor.BYTES];
        for (int i = 0; i < size; i++) {
            members[i] = CudaRingMember.create(cuda, driver.directory, i, size, 0, slotCount, chunkBytes);
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

    @Override
    public FakeCuda cuda() {
        return cuda;
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

    @Override
    public Throwable[] broadcast(final int root, final DeviceBuffer[] buffers, final long bytes, final int chunkBytes)
            throws InterruptedException {
        return driver.run(rank -> members[rank].start(
                buffers[rank],
                bytes,
                chunkBytes,
                root,
                false,
                (toLeft, fromRight) -> driver.exchange(
                        rank,
                        toLeft,
                        posted -> System.arraycopy(
                                posted[(rank + 1) % members.length], 0, fromRight, 0, fromRight.length))));
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
        driver.deleteDirectory();
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
}
