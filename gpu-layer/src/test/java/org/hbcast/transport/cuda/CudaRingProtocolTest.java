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
 * The CUDA IPC ring's protocol against {@link FakeCuda}, whose copies land late and out of order:
 * every byte arrives, in both modes and across the switch between them, no slot is overwritten
 * before its reader has read it (the fake's hazard check), and failures end every rank's call.
 *
 * <p>These tests fail when the protocol is wrong. Besides the lying-events test below, each of these
 * deliberate breaks was tried (2026-11-25) and caught: the sender publishing a chunk before its
 * copy's event completed (hazard "ran before the earlier copy it conflicts with" in slot mode; a copy
 * through a mapping already closed in direct mode), and the receiver handing a slot back before the
 * copies reading it completed (hazard "overwrote bytes the earlier copy has still to read").
 */
class CudaRingProtocolTest {
    private static final int CHUNK = 64 * 1024;
    private static final int SLOTS = 4;

    @Test
    void slotModeDeliversEveryByteFromEveryRootWhateverTheOrderCopiesLandIn() throws Exception {
        for (int seed = 1; seed <= 8; seed++) {
            try (FakeRing ring = new FakeRing(new FakeCuda(seed), 3, SLOTS, CHUNK)) {
                final long bytes = CudaRingMember.DIRECT_MIN_BYTES - 1;
                final DeviceBuffer[] buffers = ring.buffers(bytes);
                for (int root = 0; root < 3; root++) {
                    FakeNode.broadcastAndCheck(ring, root, buffers, bytes, CHUNK, seed * 31L + root);
                }
                assertEquals(0, ring.cuda.ipcOpens() - slotMappings(3), "slot mode maps no user buffer");
                FakeNode.closeAll(buffers);
                assertEquals("[]", ring.cuda.violations().toString());
            }
        }
    }

    @Test
    void directModeFromOneMebibyteWritesStraightIntoTheNeighboursBuffer() throws Exception {
        for (int seed = 1; seed <= 8; seed++) {
            try (FakeRing ring = new FakeRing(new FakeCuda(seed), 4, SLOTS, CHUNK)) {
                final long bytes = 3 * CudaRingMember.DIRECT_MIN_BYTES + 17;
                final DeviceBuffer[] buffers = ring.buffers(bytes);
                for (int root = 0; root < 4; root++) {
                    FakeNode.broadcastAndCheck(ring, root, buffers, bytes, CHUNK, seed * 17L + root);
                }
                assertEquals(slotMappings(4) + 4 * 3, ring.cuda.ipcOpens(), "each call maps once per sending rank");
                FakeNode.closeAll(buffers);
                assertEquals("[]", ring.cuda.violations().toString());
            }
        }
    }

    @Test
    void theModeSwitchesEitherSideOfOneMebibyteOnTheSameLinks() throws Exception {
        final long[] sizes = {
            CudaRingMember.DIRECT_MIN_BYTES,
            17,
            CudaRingMember.DIRECT_MIN_BYTES - 1,
            2 * CudaRingMember.DIRECT_MIN_BYTES,
            1,
            CudaRingMember.DIRECT_MIN_BYTES + 1,
            CHUNK,
            CudaRingMember.DIRECT_MIN_BYTES
        };
        try (FakeRing ring = new FakeRing(new FakeCuda(7), 3, SLOTS, CHUNK)) {
            final DeviceBuffer[] buffers = ring.buffers(2 * CudaRingMember.DIRECT_MIN_BYTES);
            for (int i = 0; i < sizes.length; i++) {
                FakeNode.broadcastAndCheck(ring, i % 3, buffers, sizes[i], CHUNK, i);
                final LinkMode expected =
                        sizes[i] >= CudaRingMember.DIRECT_MIN_BYTES ? LinkMode.DIRECT : LinkMode.SLOTS;
                assertEquals(expected, ring.members[i % 3].senderMode(), "mode of " + sizes[i] + " bytes");
            }
            FakeNode.closeAll(buffers);
        }
    }

    @Test
    void usersBuffersAreMappedForOneCallOnlySoTheirOwnersMayFreeThemOnReturn() throws Exception {
        try (FakeRing ring = new FakeRing(new FakeCuda(11), 3, SLOTS, CHUNK)) {
            final long bytes = CudaRingMember.DIRECT_MIN_BYTES + 100;
            final int slotsMapped = ring.cuda.openMappings();
            for (int call = 0; call < 6; call++) {
                // A fresh set of buffers every call, freed as soon as the call has returned everywhere.
                final DeviceBuffer[] buffers = ring.buffers(bytes);
                FakeNode.broadcastAndCheck(ring, call % 3, buffers, bytes, CHUNK, call);
                assertEquals(slotsMapped, ring.cuda.openMappings(), "call " + call + ": only the slots stay mapped");
                for (final CudaRingMember member : ring.members) {
                    assertFalse(member.holdsUserMapping(), "call " + call + ": rank still maps a user buffer");
                }
                FakeNode.closeAll(buffers);
                assertEquals("[]", ring.cuda.violations().toString(), "call " + call + ": freed while mapped");
            }
            long userOpens = 0;
            for (final CudaRingMember member : ring.members) {
                userOpens += member.userMappingOpens();
            }
            assertEquals(6 * 2, userOpens, "each call maps once per sending rank (two of three)");
        }
    }

    @Test
    void aRankThatCannotDescribeItsBufferFailsTheCallOnEveryRankWithoutWaiting() throws Exception {
        for (int failing = 0; failing < 4; failing++) {
            final FakeCuda cuda = new FakeCuda(failing);
            final FakeRing ring = new FakeRing(cuda, 4, SLOTS, CHUNK);
            try {
                final long bytes = CudaRingMember.DIRECT_MIN_BYTES;
                final DeviceBuffer[] buffers = ring.buffers(bytes);
                cuda.failIpcHandleOf(buffers[failing].address());
                // Before, the failing rank threw before the swap and its neighbours waited in it for ever.
                expectEveryRankFailed(ring.broadcast(0, buffers, bytes, CHUNK), "rank " + failing + "'s handle");
                FakeNode.closeAll(buffers);
                assertEquals("[]", cuda.violations().toString());
            } finally {
                ring.closeAfterFailure();
            }
        }
    }

    @Test
    void aMappingThatCannotBeOpenedFailsTheCallOnEveryRank() throws Exception {
        // Opens 1 to 4 map the slots at connect; the next ones map the neighbours' buffers.
        for (long open = 5; open <= 7; open++) {
            final FakeCuda cuda = new FakeCuda(open).failIpcOpen(open);
            final FakeRing ring = new FakeRing(cuda, 4, SLOTS, CHUNK);
            try {
                final long bytes = 2 * CudaRingMember.DIRECT_MIN_BYTES;
                final DeviceBuffer[] buffers = ring.buffers(bytes);
                expectEveryRankFailed(ring.broadcast(1, buffers, bytes, CHUNK), "open " + open);
                FakeNode.closeAll(buffers);
                assertEquals("[]", cuda.violations().toString());
            } finally {
                ring.closeAfterFailure();
            }
        }
    }

    private static void expectEveryRankFailed(final Throwable[] outcome, final String what) {
        for (int i = 0; i < outcome.length; i++) {
            assertNotNull(outcome[i], what + ": rank " + i + " did not fail: " + Arrays.toString(outcome));
        }
    }

    @Test
    void theFakeCatchesAProtocolThatTrustsCopiesBeforeTheyComplete() throws Exception {
        // Events that claim completion at once are what a link end that published TAIL (or handed a
        // slot back) right after queuing its copy would see: the same protocol minus its waits.
        int caught = 0;
        for (int seed = 1; seed <= 4; seed++) {
            final FakeRing ring = new FakeRing(new FakeCuda(seed).lieAboutEvents(), 3, SLOTS, CHUNK);
            final long bytes = CudaRingMember.DIRECT_MIN_BYTES - 1;
            final DeviceBuffer[] buffers = ring.buffers(bytes);
            try {
                FakeNode.broadcastAndCheck(ring, 0, buffers, bytes, CHUNK, seed);
            } catch (final AssertionError expected) {
                caught++;
            }
            // Copies still queued land at close; the buffers go last so that they have somewhere to land.
            ring.closeAfterFailure();
            FakeNode.closeAll(buffers);
        }
        assertEquals(4, caught, "every seed shows the missing wait");
    }

    @Test
    void aCopyThatFailsWhenQueuedEndsEveryRanksCall() throws Exception {
        for (long copy = 1; copy <= 40; copy += 3) {
            final FakeRing ring = new FakeRing(new FakeCuda(copy).failQueuedCopy(copy), 4, SLOTS, CHUNK);
            try {
                expectFailureEverywhereDownstream(ring, copy);
            } finally {
                ring.closeAfterFailure();
            }
        }
    }

    @Test
    void aCopyThatFailsOnTheDeviceEndsEveryRanksCall() throws Exception {
        for (long copy = 1; copy <= 40; copy += 3) {
            final FakeRing ring = new FakeRing(new FakeCuda(copy).failRunningCopy(copy), 4, SLOTS, CHUNK);
            try {
                expectFailureEverywhereDownstream(ring, copy);
            } finally {
                ring.closeAfterFailure();
            }
        }
    }

    /**
     * Rank 0 broadcasts; some copy fails. The rank whose copy failed reports it, and every rank after
     * it in the chain fails too instead of waiting (ranks before it may have finished their part: the
     * call's closing agreement is what tells them). Nothing hangs.
     */
    private static void expectFailureEverywhereDownstream(final FakeRing ring, final long copy) throws Exception {
        final long bytes = 2 * CudaRingMember.DIRECT_MIN_BYTES - 5;
        final DeviceBuffer[] buffers = ring.buffers(bytes);
        final Throwable[] outcome = ring.broadcast(0, buffers, bytes, CHUNK);
        int firstFailed = -1;
        for (int i = 0; i < outcome.length; i++) {
            if (outcome[i] != null && firstFailed < 0) {
                firstFailed = i;
            }
            if (firstFailed >= 0) {
                assertNotNull(
                        outcome[i],
                        "copy " + copy + ": rank " + i + " finished after rank " + firstFailed + " failed: "
                                + Arrays.toString(outcome));
            }
        }
        assertTrue(firstFailed >= 0, "copy " + copy + " failed, yet every rank finished");
        assertTrue(
                Arrays.stream(outcome).anyMatch(t -> t instanceof CudaException),
                "the CUDA error itself is reported: " + Arrays.toString(outcome));
        // Every rank has returned: no copy of the failed call may still be in flight into these buffers.
        FakeNode.closeAll(buffers);
        assertEquals("[]", ring.cuda.violations().toString(), "copy " + copy + ": what CUDA leaves undefined");
    }

    static int slotMappings(final int ranks) {
        return ranks;
    }
}
