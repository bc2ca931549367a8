package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.Random;
import org.hbcast.device.DeviceBuffer;
import org.junit.jupiter.api.Test;

/**
 * Device memory the program allocated itself ({@link DeviceBuffer#ofUserMemory}) against {@link
 * FakeCuda}, which models each kind of memory CUDA tells apart: what cannot go through the IPC ring is
 * refused with a message that says why, what can is broadcast byte for byte in both link modes and
 * is never freed by the library, and memory freed or replaced since it was described is noticed.
 */
class UserDeviceMemoryTest {
    private static final int CHUNK = 64 * 1024;

    @Test
    void memoryTheRingCannotExportIsRefusedWithItsReason() {
        final FakeCuda cuda = new FakeCuda(1);
        assertRefused(DeviceBuffer.ofUserMemory(cuda.managedAlloc(4096, 0), 4096, 0, cuda), "managed memory");
        assertRefused(DeviceBuffer.ofUserMemory(cuda.poolAlloc(4096, 0), 4096, 0, cuda), "stream-ordered memory pool");
        assertRefused(DeviceBuffer.ofUserMemory(cuda.hostAlloc(4096), 4096, 0, cuda), "is host memory");
        final long device = cuda.malloc(0, 4096);
        assertRefused(DeviceBuffer.ofUserMemory(device + 64, 1024, 0, cuda), "starts 64 bytes into its allocation");
        assertRefused(DeviceBuffer.ofUserMemory(device, 4097, 0, cuda), "lies outside its allocation of 4096");
        assertRefused(DeviceBuffer.ofUserMemory(device, 4096, 1, cuda), "is on device 0, not device 1");
        cuda.free(0, device);
        assertRefused(DeviceBuffer.ofUserMemory(device, 4096, 0, cuda), "not memory CUDA knows");
        assertThrows(IllegalArgumentException.class, () -> DeviceBuffer.ofUserMemory(0, 16, 0, cuda));
        assertThrows(IllegalArgumentException.class, () -> DeviceBuffer.ofUserMemory(device, -1, 0, cuda));
        assertEquals("[]", cuda.violations().toString());
    }

    @Test
    void memoryFreedOrReplacedSinceItWasDescribedIsRefused() {
        final FakeCuda cuda = new FakeCuda(2);
        final long a = cuda.malloc(0, 4096);
        final DeviceBuffer described = DeviceBuffer.ofUserMemory(a, 4096, 0, cuda);
        assertNull(described.userMemoryProblem());
        cuda.reallocateInPlace(a);
        assertRefused(described, "freed and allocated again");
        final long b = cuda.malloc(0, 4096);
        final DeviceBuffer gone = DeviceBuffer.ofUserMemory(b, 4096, 0, cuda);
        cuda.free(0, b);
        assertRefused(gone, "was freed since it was described");
        final DeviceBuffer again = DeviceBuffer.ofUserMemory(a, 4096, 0, cuda);
        assertNull(again.userMemoryProblem(), "described anew, the new allocation is accepted");
        assertNotEquals(described.generation(), again.generation(), "a peer's cached mapping sees a new allocation");
    }

    @Test
    void theProgramsMemoryIsBroadcastInBothModesAndNeverFreed() throws Exception {
        for (int seed = 1; seed <= 4; seed++) {
            try (FakeRing ring = new FakeRing(new FakeCuda(seed), 3, 4, CHUNK)) {
                final long bytes = CudaRingMember.DIRECT_MIN_BYTES + 33;
                final long[] addresses = new long[3];
                final DeviceBuffer[] buffers = new DeviceBuffer[3];
                for (int i = 0; i < 3; i++) {
                    addresses[i] = ring.cuda.malloc(0, bytes);
                    buffers[i] = DeviceBuffer.ofUserMemory(addresses[i], bytes, 0, ring.cuda);
                    assertNull(buffers[i].userMemoryProblem());
                    assertTrue(buffers[i].isUserMemory());
                }
                final int live = ring.cuda.liveAllocations();
                for (int root = 0; root < 3; root++) {
                    // Slot mode below DIRECT_MIN_BYTES, buffer to buffer from it.
                    FakeNode.broadcastAndCheck(ring, root, buffers, CHUNK * 3L + 5, CHUNK, seed * 7L + root);
                    FakeNode.broadcastAndCheck(ring, root, buffers, bytes, CHUNK, seed * 11L + root);
                }
                FakeNode.closeAll(buffers);
                assertEquals(live, ring.cuda.liveAllocations(), "closing the program's memory frees nothing");
                for (final long address : addresses) {
                    ring.cuda.free(0, address);
                }
                assertEquals("[]", ring.cuda.violations().toString(), "freed by the program after its calls");
            }
        }
    }

    /**
     * The staging plan's data path as a device call runs it (DeviceMemory.stagedNative): the root's
     * whole message device to pinned host in one copy, the host broadcast (here a copy between the
     * ranks' pinned buffers), host to device at each receiver, on the program's own memory.
     */
    @Test
    void theStagingPathMovesTheProgramsMemoryWholeThroughTheHost() {
        for (int seed = 1; seed <= 4; seed++) {
            final FakeCuda cuda = new FakeCuda(seed);
            for (final int bytes : new int[] {1, 4097, (1 << 20) + 3}) {
                final DeviceBuffer[] ranks = new DeviceBuffer[4];
                final long[] hosts = new long[4];
                for (int r = 0; r < ranks.length; r++) {
                    ranks[r] = DeviceBuffer.ofUserMemory(cuda.malloc(0, bytes), bytes, 0, cuda);
                    hosts[r] = cuda.hostAlloc(bytes);
                    final byte[] stale = new byte[bytes];
                    Arrays.fill(stale, (byte) 0x5A);
                    cuda.write(ranks[r].address(), stale);
                }
                final byte[] data = new byte[bytes];
                new Random(seed * 31L + bytes).nextBytes(data);
                cuda.write(ranks[0].address(), data);
                copyWhole(cuda, true, ranks[0], hosts[0], bytes);
                final byte[] onHost = cuda.read(hosts[0], bytes);
                for (int r = 1; r < ranks.length; r++) {
                    cuda.write(hosts[r], onHost);
                    copyWhole(cuda, false, ranks[r], hosts[r], bytes);
                }
                for (int r = 0; r < ranks.length; r++) {
                    assertArrayEquals(data, cuda.read(ranks[r].address(), bytes), "rank " + r + ", " + bytes + " B");
                    final long address = ranks[r].address();
                    ranks[r].close();
                    cuda.free(0, address);
                }
                assertEquals("[]", cuda.violations().toString(), bytes + " B");
            }
        }
    }

    /** One whole-message copy as DeviceMemory.copyWhole makes it: one chunk, driven until it landed. */
    private static void copyWhole(
            final FakeCuda cuda, final boolean toHost, final DeviceBuffer buffer, final long host, final int bytes) {
        try (StagingCopies copy = new StagingCopies(cuda, 0, 16)) {
            copy.start(toHost, buffer, host, bytes, bytes, false);
            for (int round = 0; !copy.isDone(); round++) {
                if (round > 1_000_000) {
                    throw new AssertionError("whole copy hung: " + copy.describeWait());
                }
                copy.progress();
            }
        }
    }

    private static void assertRefused(final DeviceBuffer buffer, final String reason) {
        final String problem = buffer.userMemoryProblem();
        assertNotNull(problem, buffer + " should be refused for: " + reason);
        assertTrue(problem.contains(reason), "'" + problem + "' should say: " + reason);
    }
}
