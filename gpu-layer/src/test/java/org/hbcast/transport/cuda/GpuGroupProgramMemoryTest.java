package org.hbcast.transport.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.hbcast.device.CudaException;
import org.hbcast.device.DeviceBuffer;
import org.junit.jupiter.api.Test;

/**
 * The program's own device memory ({@link DeviceBuffer#ofUserMemory}) under one copier per GPU,
 * against {@link FakeCuda} with freed addresses handed out again: a copier (and, buffer to buffer,
 * the previous GPU's leader) maps it for the call only and has closed the mapping when the owner's
 * call returns, so the program may free it straight after its call on every rank (the fake flags a
 * free under an open mapping); the library's own buffers keep their cached mappings in between.
 */
class GpuGroupProgramMemoryTest {
    private static final int CHUNK = 64 * 1024;
    private static final int SLOTS = 2;
    private static final long BYTES = 5L * CHUNK + 3;

    @Test
    void programMemoryIsMappedPerCallAndMayBeFreedAndReallocatedAfterEveryCall() throws Exception {
        for (final int[] layout : new int[][] {{1, 4}, {2, 3}}) {
            for (final boolean interleaved : new boolean[] {true, false}) {
                final int gpus = layout[0];
                final int ranks = gpus * layout[1];
                final String where = Arrays.toString(layout) + (interleaved ? " interleaved" : " contiguous");
                final FakeCuda cuda = new FakeCuda(ranks * 3L + gpus, gpus).reuseFreedAddresses();
                try (FakeGpuNode node =
                        new FakeGpuNode(cuda, ranks, FakeGpuNode.place(layout, interleaved), SLOTS, CHUNK)) {
                    final int setUpMappings = cuda.openMappings();
                    long[] addresses = allocate(node, BYTES);
                    final long[] first = addresses.clone();
                    for (int root = 0; root < ranks; root++) {
                        final DeviceBuffer[] views = describe(node, addresses, BYTES);
                        final long opens = cuda.ipcOpens();
                        final long programOpens = programOpens(node);
                        FakeNode.broadcastAndCheck(node, root, views, BYTES, CHUNK, root * 17L + ranks);
                        // The program frees its memory as soon as every call has returned (the fake flags a
                        // free under an open mapping), and allocates anew below.
                        FakeNode.closeAll(views);
                        free(node, addresses);
                        assertEquals("[]", cuda.violations().toString(), where + " root " + root);
                        // Each copier mapped each other member of its GPU once for this call: ranks - gpus.
                        assertEquals(ranks - gpus, cuda.ipcOpens() - opens, where + " root " + root + ": opens");
                        assertEquals(ranks - gpus, programOpens(node) - programOpens, where + " root " + root);
                        assertNoProgramMappingLeft(node, setUpMappings, where + " root " + root);
                        addresses = allocate(node, BYTES);
                        assertEquals(Arrays.toString(first), Arrays.toString(addresses), "the fake reuses addresses");
                    }
                    free(node, addresses);
                }
                assertEquals("[]", cuda.violations().toString(), where);
                assertEquals(0, cuda.openMappings(), where + ": every mapping closed");
                assertEquals(0, cuda.liveAllocations(), where + ": nothing left allocated");
            }
        }
    }

    @Test
    void libraryBuffersKeepTheirCachedMappingsAcrossCallsOnProgramMemory() throws Exception {
        final int[] layout = {2, 3};
        final FakeCuda cuda = new FakeCuda(31, 2).reuseFreedAddresses();
        try (FakeGpuNode node = new FakeGpuNode(cuda, 6, FakeGpuNode.place(layout, true), SLOTS, CHUNK)) {
            final int setUpMappings = cuda.openMappings();
            final DeviceBuffer[] library = node.buffers(BYTES);
            for (int root = 0; root < 6; root++) {
                FakeNode.broadcastAndCheck(node, root, library, BYTES, CHUNK, root);
            }
            // Every rank has copied for its two group mates (six per GPU); below DIRECT_MIN_BYTES the
            // leaders go through their slots and map no buffer.
            final int cached = cachedMappings(node);
            assertEquals(12, cached);
            for (int root = 0; root < 6; root++) {
                final long[] addresses = allocate(node, BYTES);
                final DeviceBuffer[] views = describe(node, addresses, BYTES);
                long opens = cuda.ipcOpens();
                FakeNode.broadcastAndCheck(node, root, views, BYTES, CHUNK, 40 + root);
                FakeNode.closeAll(views);
                free(node, addresses);
                assertEquals("[]", cuda.violations().toString(), "root " + root + ": freed after the call");
                assertEquals(4, cuda.ipcOpens() - opens, "root " + root + ": the program's memory, per call");
                assertEquals(cached, cachedMappings(node), "root " + root + ": the cache holds no program memory");
                assertEquals(setUpMappings + cached, cuda.openMappings(), "root " + root + ": none left open");
                opens = cuda.ipcOpens();
                FakeNode.broadcastAndCheck(node, root, library, BYTES, CHUNK, 80 + root);
                assertEquals(0, cuda.ipcOpens() - opens, "root " + root + ": the library's buffers are still mapped");
            }
            FakeNode.closeAll(library);
        }
        assertEquals("[]", cuda.violations().toString());
        assertEquals(0, cuda.openMappings());
        assertEquals(0, cuda.liveAllocations());
    }

    @Test
    void theNextLeaderMapsProgramMemoryPerCallBufferToBufferAndKeepsLibraryBuffers() throws Exception {
        final long bytes = CudaRingMember.DIRECT_MIN_BYTES + 5;
        final FakeCuda cuda = new FakeCuda(37, 2).reuseFreedAddresses();
        try (FakeGpuNode node = new FakeGpuNode(cuda, 4, r -> r / 2, SLOTS, CHUNK)) {
            final int setUpMappings = cuda.openMappings();
            final DeviceBuffer[] library = node.buffers(bytes);
            FakeNode.broadcastAndCheck(node, 0, library, bytes, CHUNK, 1);
            FakeNode.broadcastAndCheck(node, 1, library, bytes, CHUNK, 2);
            final int cached = cachedMappings(node);
            assertEquals(4, cached, "ranks 0 and 1 by each other, rank 3 by its leader, rank 2 by the first leader");
            final long libraryOpens = cuda.ipcOpens();
            for (final int root : new int[] {0, 3}) {
                final long[] addresses = allocate(node, bytes);
                final DeviceBuffer[] views = describe(node, addresses, bytes);
                final long opens = cuda.ipcOpens();
                FakeNode.broadcastAndCheck(node, root, views, bytes, CHUNK, 10 + root);
                assertEquals(
                        LinkMode.DIRECT, node.members[root < 2 ? 0 : 2].ring().senderMode(), "buffer to buffer");
                FakeNode.closeAll(views);
                free(node, addresses);
                assertEquals("[]", cuda.violations().toString(), "root " + root + ": freed after the call");
                // Two copiers map their group mate, the first GPU's leader the next leader: three, for this call.
                assertEquals(3, cuda.ipcOpens() - opens, "root " + root);
                assertEquals(cached, cachedMappings(node), "root " + root + ": the cache holds no program memory");
                assertNoProgramMappingLeft(node, setUpMappings + cached, "root " + root);
            }
            final long opens = cuda.ipcOpens();
            FakeNode.broadcastAndCheck(node, 0, library, bytes, CHUNK, 20);
            FakeNode.broadcastAndCheck(node, 1, library, bytes, CHUNK, 21);
            assertEquals(0, cuda.ipcOpens() - opens, "the library's buffers are still mapped, the leader's too");
            assertEquals(libraryOpens, cuda.ipcOpens() - 6, "the only opens since were the program memory's");
            FakeNode.closeAll(library);
        }
        assertEquals("[]", cuda.violations().toString());
        assertEquals(0, cuda.openMappings());
        assertEquals(0, cuda.liveAllocations());
    }

    @Test
    void gpusChainedThroughTheHostMapOnlyTheirGroupsProgramMemoryPerCall() throws Exception {
        final int[] layout = {2, 2};
        final FakeCuda cuda =
                new FakeCuda(41, 2).peerAccess((device, peer) -> false).reuseFreedAddresses();
        try (FakeGpuNode node = new FakeGpuNode(cuda, 4, FakeGpuNode.place(layout, true), SLOTS, CHUNK)) {
            final int setUpMappings = cuda.openMappings();
            for (int root = 0; root < 4; root++) {
                final long[] addresses = allocate(node, BYTES);
                final DeviceBuffer[] views = describe(node, addresses, BYTES);
                final long opens = cuda.ipcOpens();
                FakeNode.broadcastAndCheck(node, root, views, BYTES, CHUNK, 60 + root);
                FakeNode.closeAll(views);
                free(node, addresses);
                assertEquals("[]", cuda.violations().toString(), "root " + root + ": freed after the call");
                assertEquals(2, cuda.ipcOpens() - opens, "root " + root + ": each copier its group mate");
                assertNoProgramMappingLeft(node, setUpMappings, "root " + root);
            }
        }
        assertEquals("[]", cuda.violations().toString());
        assertEquals(0, cuda.liveAllocations());
    }

    @Test
    void aFailedOpenOfProgramMemoryEndsTheCallWithNothingLeftMapped() throws Exception {
        for (long n = 1; n <= 3; n++) {
            // One GPU: no ring, so opens 1-3 are the copier's per-call mappings of its three members.
            final FakeCuda cuda = new FakeCuda(43 + n, 1).failIpcOpen(n);
            final FakeGpuNode node = new FakeGpuNode(cuda, 4, r -> 0, SLOTS, CHUNK);
            final long[] addresses = allocate(node, BYTES);
            final DeviceBuffer[] views = describe(node, addresses, BYTES);
            final Throwable[] outcome = node.broadcast(0, views, BYTES, CHUNK);
            final String what = "open " + n + " fails: " + Arrays.toString(outcome);
            assertTrue(outcome[0] instanceof CudaException, what);
            for (int r = 1; r < 4; r++) {
                assertNotNull(outcome[r], what + ": rank " + r + " fails too");
            }
            assertNoProgramMappingLeft(node, 0, what);
            FakeNode.closeAll(views);
            free(node, addresses);
            assertEquals("[]", cuda.violations().toString(), what);
            node.closeAfterFailure();
        }
    }

    private static long[] allocate(final FakeGpuNode node, final long bytes) {
        final long[] addresses = new long[node.members.length];
        for (int r = 0; r < addresses.length; r++) {
            addresses[r] = node.processes[r].malloc(node.devices[r], bytes);
        }
        return addresses;
    }

    private static DeviceBuffer[] describe(final FakeGpuNode node, final long[] addresses, final long bytes) {
        final DeviceBuffer[] views = new DeviceBuffer[addresses.length];
        for (int r = 0; r < views.length; r++) {
            views[r] = DeviceBuffer.ofUserMemory(addresses[r], bytes, node.devices[r], node.processes[r]);
            assertNull(views[r].userMemoryProblem(), "rank " + r);
        }
        return views;
    }

    private static void free(final FakeGpuNode node, final long[] addresses) {
        for (int r = 0; r < addresses.length; r++) {
            node.processes[r].free(node.devices[r], addresses[r]);
        }
    }

    private static long programOpens(final FakeGpuNode node) {
        long opens = 0;
        for (final GpuGroupMember member : node.members) {
            opens += member.programMappingOpens();
        }
        return opens;
    }

    private static int cachedMappings(final FakeGpuNode node) {
        int mapped = 0;
        for (final GpuGroupMember member : node.members) {
            mapped += member.cachedMappings();
        }
        return mapped;
    }

    private static void assertNoProgramMappingLeft(final FakeGpuNode node, final int expectedOpen, final String what) {
        for (final GpuGroupMember member : node.members) {
            assertFalse(member.holdsProgramMapping(), what + ": node rank " + member.position() + " still maps");
        }
        assertEquals(expectedOpen, node.cuda.openMappings(), what + ": open mappings in the fake");
    }
}
