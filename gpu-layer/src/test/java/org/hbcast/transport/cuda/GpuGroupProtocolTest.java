package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.hbcast.device.CudaException;
import org.hbcast.device.DeviceBuffer;
import org.junit.jupiter.api.Test;

/**
 * One copier per GPU against {@link FakeCuda} topologies of 1-8 GPUs with 1-4 ranks each, ranks
 * numbering their GPUs differently: every byte arrives from every root, only the copier copies into
 * its group, members' buffers are mapped once and unmapped before their memory goes, a GPU pair
 * without peer access is refused at set-up, failures end the call without a hang, and a GPU that
 * lies about its events is caught.
 */
class GpuGroupProtocolTest {
    private static final int CHUNK = 64 * 1024;
    private static final int SLOTS = 2;
    private static final long BYTES = 5L * CHUNK + 3;

    /** {gpus, ranks per GPU}: a rank per GPU, several per GPU, the issue's one GPU of four, eight GPUs. */
    private static final int[][] LAYOUTS = {{1, 4}, {2, 1}, {2, 3}, {3, 4}, {4, 2}, {8, 1}, {8, 4}};

    @Test
    void everyLayoutDeliversEveryByteFromEveryRootWhateverTheOrderCopiesLandIn() throws Exception {
        for (final int[] layout : LAYOUTS) {
            for (final boolean interleaved : new boolean[] {true, false}) {
                final int gpus = layout[0];
                final int ranks = gpus * layout[1];
                final FakeCuda cuda = new FakeCuda(ranks * 7L + gpus, gpus);
                try (FakeGpuNode node =
                        new FakeGpuNode(cuda, ranks, FakeGpuNode.place(layout, interleaved), SLOTS, CHUNK)) {
                    assertEquals(gpus, node.groups().groupCount(), Arrays.toString(layout));
                    final DeviceBuffer[] buffers = node.buffers(BYTES);
                    for (int root = 0; root < ranks; root += ranks > 8 ? 5 : 1) {
                        broadcastAndCheck(node, root, buffers, BYTES, root * 31L + ranks);
                    }
                    FakeNode.closeAll(buffers);
                }
                assertEquals("[]", cuda.violations().toString(), Arrays.toString(layout));
            }
        }
    }

    @Test
    void onlyTheCopierCopiesIntoItsGroupAndMembersIssueNoCopy() throws Exception {
        final int[] layout = {3, 3};
        final FakeCuda cuda = new FakeCuda(5, 3);
        try (FakeGpuNode node = new FakeGpuNode(cuda, 9, FakeGpuNode.place(layout, true), SLOTS, CHUNK)) {
            final DeviceBuffer[] buffers = node.buffers(BYTES);
            final GpuGroups groups = node.groups();
            final int chunks = 6;
            for (int root = 0; root < 9; root++) {
                final long[] before = new long[9];
                for (int r = 0; r < 9; r++) {
                    before[r] = node.copies(r);
                }
                broadcastAndCheck(node, root, buffers, BYTES, root);
                for (int r = 0; r < 9; r++) {
                    final int g = groups.groupOf(r);
                    final boolean copier = groups.copier(g, root) == r;
                    final boolean leader = groups.leader(g) == r;
                    final long copies = node.copies(r) - before[r];
                    if (!copier && !leader) {
                        assertEquals(0, copies, "root " + root + ": member " + r + " issued copies");
                    }
                    if (copier) {
                        assertTrue(
                                copies >= 2L * chunks,
                                "root " + root + ": copier " + r + " copies for its two members: " + copies);
                    }
                }
            }
            FakeNode.closeAll(buffers);
        }
        assertEquals("[]", cuda.violations().toString());
    }

    @Test
    void membersBuffersAreMappedOnceAndReusedWhileUnchanged() throws Exception {
        final int[] layout = {2, 4};
        final FakeCuda cuda = new FakeCuda(9, 2);
        try (FakeGpuNode node = new FakeGpuNode(cuda, 8, FakeGpuNode.place(layout, false), SLOTS, CHUNK)) {
            final DeviceBuffer[] buffers = node.buffers(BYTES);
            final long atStart = node.cuda.ipcOpens();
            for (int root = 0; root < 8; root++) {
                final long before = node.cuda.ipcOpens();
                broadcastAndCheck(node, root, buffers, BYTES, root);
                assertTrue(node.cuda.ipcOpens() - before <= 2 * 3, "each GPU's copier maps at most its three members");
            }
            // Every rank has been a copier for its three group mates: 8 x 3 mappings, no more.
            assertEquals(8 * 3, node.cuda.ipcOpens() - atStart);
            for (int round = 0; round < 2; round++) {
                for (int root = 0; root < 8; root++) {
                    final long before = node.cuda.ipcOpens();
                    broadcastAndCheck(node, root, buffers, BYTES, 100 + root);
                    assertEquals(0, node.cuda.ipcOpens() - before, "call from " + root + " paid no mapping");
                }
            }
            FakeNode.closeAll(buffers);
        }
        assertEquals("[]", cuda.violations().toString());
    }

    @Test
    void aClosedBufferIsUnmappedEverywhereBeforeItsMemoryGoesAndItsAddressGetsANewMapping() throws Exception {
        final int[] layout = {2, 2};
        final FakeCuda cuda = new FakeCuda(13, 2).reuseFreedAddresses();
        try (FakeGpuNode node = new FakeGpuNode(cuda, 4, FakeGpuNode.place(layout, false), SLOTS, CHUNK)) {
            final DeviceBuffer[] buffers = node.buffers(BYTES);
            broadcastAndCheck(node, 0, buffers, BYTES, 1); // rank 0 maps rank 1's buffer
            final DeviceBuffer old = buffers[1];
            final long oldAddress = old.address();
            old.close();
            assertTrue(old.isClosed());
            assertFalse(old.isFreed(), "rank 0 still maps it: the free waits");
            assertEquals("[]", cuda.violations().toString());
            buffers[1] = node.buffer(1, BYTES);
            broadcastAndCheck(node, 0, buffers, BYTES, 2); // announces the old generation; rank 0 unmaps it
            assertFalse(old.isFreed(), "freed only once every rank is known to have unmapped it");
            broadcastAndCheck(node, 3, buffers, BYTES, 3); // the gather proves it: freed now
            assertTrue(old.isFreed());
            assertEquals("[]", cuda.violations().toString());
            // The next buffer of that size takes the freed address: a new allocation, so a new mapping.
            final DeviceBuffer reborn = node.buffer(1, BYTES);
            assertEquals(oldAddress, reborn.address());
            buffers[1].close();
            buffers[1] = reborn;
            final long before = cuda.ipcOpens();
            broadcastAndCheck(node, 0, buffers, BYTES, 4);
            assertEquals(1, cuda.ipcOpens() - before, "the reborn address is mapped anew");
            FakeNode.closeAll(buffers);
        }
        assertEquals("[]", cuda.violations().toString());
        assertEquals(0, cuda.openMappings(), "every mapping closed");
        assertEquals(0, cuda.liveAllocations(), "every deferred free done at close");
    }

    @Test
    void theLeadersKeepTheNextLeadersBufferMappedInBufferToBufferCalls() throws Exception {
        final long bytes = CudaRingMember.DIRECT_MIN_BYTES + 5;
        final FakeCuda cuda = new FakeCuda(23, 2);
        try (FakeGpuNode node = new FakeGpuNode(cuda, 4, r -> r / 2, SLOTS, CHUNK)) {
            final DeviceBuffer[] buffers = node.buffers(bytes);
            for (final int root : new int[] {0, 1, 2, 3}) {
                broadcastAndCheck(node, root, buffers, bytes, root);
            }
            final long before = cuda.ipcOpens();
            for (final int root : new int[] {3, 2, 1, 0}) {
                broadcastAndCheck(node, root, buffers, bytes, 10 + root);
            }
            assertEquals(LinkMode.DIRECT, node.members[0].ring().senderMode(), "leader to leader, buffer to buffer");
            assertEquals(0, cuda.ipcOpens() - before, "buffer-to-buffer calls map nothing once every buffer is known");
            // The second GPU's leader closes its buffer: freed two calls later, never while the first maps it.
            final DeviceBuffer old = buffers[2];
            old.close();
            buffers[2] = node.buffer(2, bytes);
            broadcastAndCheck(node, 0, buffers, bytes, 20);
            assertFalse(old.isFreed());
            broadcastAndCheck(node, 1, buffers, bytes, 21);
            assertTrue(old.isFreed());
            FakeNode.closeAll(buffers);
        }
        assertEquals("[]", cuda.violations().toString());
        assertEquals(0, cuda.openMappings(), "every mapping closed");
    }

    @Test
    void theFakeCatchesAFreeThatDoesNotWaitForTheCopiersMapping() throws Exception {
        final FakeCuda cuda = new FakeCuda(17, 1);
        try (FakeGpuNode node = new FakeGpuNode(cuda, 2, r -> 0, SLOTS, CHUNK)) {
            final DeviceBuffer[] buffers = node.buffers(BYTES);
            broadcastAndCheck(node, 0, buffers, BYTES, 1);
            // Bypassing the deferral, as a free straight after the call would: rank 0 still maps it.
            buffers[1].close();
            buffers[1].release(node.members[1]);
            assertTrue(
                    cuda.violations().toString().contains("mapping(s) of it are open"),
                    cuda.violations().toString());
            buffers[0].close();
        }
    }

    @Test
    void gpusThatCannotReachEachOtherChainThroughPinnedHostMemory() throws Exception {
        // On 3 and 4 GPUs only GPUs 0 and 1 reach each other, on 2 none do: the chain goes through the host.
        for (final int[] layout : new int[][] {{2, 1}, {3, 2}, {4, 3}}) {
            final int gpus = layout[0];
            final int ranks = gpus * layout[1];
            final FakeCuda cuda =
                    new FakeCuda(ranks + 19L, gpus).peerAccess((device, peer) -> gpus > 2 && device < 2 && peer < 2);
            try (FakeGpuNode node = new FakeGpuNode(cuda, ranks, FakeGpuNode.place(layout, true), SLOTS, CHUNK)) {
                assertTrue(
                        node.groups().describe(0).contains("-host->"),
                        node.groups().describe(0));
                final DeviceBuffer[] buffers = node.buffers(BYTES);
                for (int root = 0; root < ranks; root++) {
                    broadcastAndCheck(node, root, buffers, BYTES, root * 7L + ranks);
                }
                FakeNode.closeAll(buffers);
            }
            assertEquals("[]", cuda.violations().toString(), Arrays.toString(layout));
            assertEquals(0, cuda.liveAllocations(), "everything freed, the pinned host memory unregistered");
        }
    }

    @Test
    void aCopyThatFailsQueuedOrRunningOrAnOpenThatFailsEndsTheCallWithoutAHang() throws Exception {
        for (int kind = 0; kind < 3; kind++) {
            for (long n = 1; n <= 25; n += 4) {
                // Every other case chains the two GPUs through the host instead of peer to peer.
                final boolean host = (n / 4) % 2 == 1;
                final FakeCuda cuda = new FakeCuda(n, 2).peerAccess((device, peer) -> !host);
                if (kind == 0) {
                    cuda.failQueuedCopy(n);
                } else if (kind == 1) {
                    cuda.failRunningCopy(n);
                } else {
                    // Peer to peer, opens 1-2 map the leaders' slots at set-up; the next four the members' buffers.
                    cuda.failIpcOpen(3 + (n % 4));
                }
                final FakeGpuNode node = new FakeGpuNode(cuda, 6, r -> r % 2, SLOTS, CHUNK);
                final DeviceBuffer[] buffers = node.buffers(BYTES);
                final Throwable[] outcome = node.broadcast(1, buffers, BYTES, CHUNK);
                final String what =
                        "failure kind " + kind + " at " + n + (host ? " (host)" : "") + ": " + Arrays.toString(outcome);
                assertTrue(Arrays.stream(outcome).anyMatch(t -> t instanceof CudaException), what);
                node.closeAfterFailure();
                FakeNode.closeAll(buffers);
                assertEquals("[]", cuda.violations().toString(), what);
            }
        }
    }

    @Test
    void aRankThatGivesUpBeforeStartingLetsNoRankWait() throws Exception {
        // A member, a GPU leader, peer to peer and through the host, slots and buffer to buffer.
        for (final boolean host : new boolean[] {false, true}) {
            for (final long bytes : new long[] {BYTES, CudaRingMember.DIRECT_MIN_BYTES + 5}) {
                for (final int refusing : new int[] {1, 2}) {
                    final FakeCuda cuda = new FakeCuda(refusing + 29L, 2).peerAccess((device, peer) -> !host);
                    final FakeGpuNode node = new FakeGpuNode(cuda, 4, r -> r / 2, SLOTS, CHUNK);
                    final DeviceBuffer[] buffers = node.buffers(bytes);
                    // Node rank `refusing` could not allocate its staging memory, say: it refuses instead of starting.
                    final Throwable[] outcome;
                    try {
                        outcome = node.broadcastRefusedBy(refusing, 0, buffers, bytes, CHUNK);
                    } catch (final AssertionError hung) {
                        // Its control blocks leave nothing in /dev/shm; the hang is the failure to report.
                        node.closeAfterFailure();
                        throw hung;
                    }
                    node.close();
                    final String what = "node rank " + refusing + " refuses " + bytes + " bytes"
                            + (host ? " (host)" : "") + ": " + Arrays.toString(outcome);
                    for (int r = 0; r < outcome.length; r++) {
                        assertNotNull(outcome[r], what + ": rank " + r + " did not fail");
                    }
                    FakeNode.closeAll(buffers);
                    assertEquals("[]", cuda.violations().toString(), what);
                    assertEquals(0, cuda.liveAllocations(), what);
                }
            }
        }
    }

    @Test
    void theFakeCatchesACopierThatTrustsCopiesBeforeTheyComplete() throws Exception {
        int caught = 0;
        for (int seed = 1; seed <= 4; seed++) {
            // Seeds 3 and 4 chain the GPUs through the host.
            final boolean host = seed > 2;
            final FakeGpuNode node = new FakeGpuNode(
                    new FakeCuda(seed, 2).lieAboutEvents().peerAccess((device, peer) -> !host),
                    4,
                    r -> r % 2,
                    SLOTS,
                    CHUNK);
            final DeviceBuffer[] buffers = node.buffers(BYTES);
            try {
                broadcastAndCheck(node, 0, buffers, BYTES, seed);
            } catch (final AssertionError expected) {
                caught++;
            }
            node.closeAfterFailure();
            FakeNode.closeAll(buffers);
        }
        assertEquals(4, caught, "every seed shows the missing wait");
    }

    private static void broadcastAndCheck(
            final FakeGpuNode node, final int root, final DeviceBuffer[] buffers, final long bytes, final long seed)
            throws InterruptedException {
        FakeNode.broadcastAndCheck(node, root, buffers, bytes, CHUNK, seed);
    }
}
