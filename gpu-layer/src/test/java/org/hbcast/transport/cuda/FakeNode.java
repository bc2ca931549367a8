package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Arrays;
import java.util.Random;
import org.hbcast.device.DeviceBuffer;

/**
 * A node of ranks in one process over a {@link FakeCuda} ({@link FakeRing}, {@link FakeGpuNode}),
 * driven by a {@link FakeCallDriver}, and the checks every protocol test makes of a broadcast on it.
 */
interface FakeNode {
    /** The fake GPU(s) every rank of the node copies on. */
    FakeCuda cuda();

    /**
     * Broadcasts {@code bytes} of {@code buffers[root]} into the others' and returns what each rank
     * saw: null for success, else its failure. Fails the test if some rank neither finishes nor fails.
     */
    Throwable[] broadcast(int root, DeviceBuffer[] buffers, long bytes, int chunkBytes) throws InterruptedException;

    /**
     * Broadcasts random bytes (from {@code seed}) from {@code root} over stale ones everywhere else,
     * and checks that every rank succeeded, every rank holds the root's bytes and the fake saw nothing
     * CUDA leaves undefined.
     */
    static void broadcastAndCheck(
            final FakeNode node,
            final int root,
            final DeviceBuffer[] buffers,
            final long bytes,
            final int chunkBytes,
            final long seed)
            throws InterruptedException {
        final FakeCuda cuda = node.cuda();
        final byte[] data = new byte[(int) bytes];
        new Random(seed).nextBytes(data);
        cuda.write(buffers[root].address(), data);
        final byte[] stale = new byte[(int) bytes];
        Arrays.fill(stale, (byte) 0x5A);
        for (int i = 0; i < buffers.length; i++) {
            if (i != root) {
                cuda.write(buffers[i].address(), stale);
            }
        }
        final Throwable[] outcome = node.broadcast(root, buffers, bytes, chunkBytes);
        for (int i = 0; i < outcome.length; i++) {
            assertNull(outcome[i], "rank " + i + " failed");
        }
        assertEquals("[]", cuda.violations().toString(), "what CUDA leaves undefined");
        for (int i = 0; i < buffers.length; i++) {
            assertArrayEquals(data, cuda.read(buffers[i].address(), (int) bytes), "rank " + i + "'s bytes");
        }
    }

    /** Closes every buffer; the fake records freeing memory under a copy still in flight or still mapped. */
    static void closeAll(final DeviceBuffer[] buffers) {
        for (final DeviceBuffer buffer : buffers) {
            buffer.close();
        }
    }
}
