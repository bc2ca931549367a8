package org.hbcast.transport.shm;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.hbcast.engine.RingPipeline;
import org.hbcast.engine.RingRole;
import org.junit.jupiter.api.Test;

/** Per-call and per-chunk work must not allocate: a broadcast every few microseconds must not feed the GC. */
class RingAllocationTest {
    @Test
    void resetAndProgressAllocateNothingAfterWarmUp() throws Exception {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "allocation counting not supported");
        threads.setThreadAllocatedMemoryEnabled(true);
        final int n = 3;
        final int chunk = 512;
        try (ShmTestDirectory dir = ShmTestDirectory.create();
                ShmTestNode node = ShmTestNode.create(dir.path(), n, 2, chunk)) {
            @SuppressWarnings("unchecked")
            final RingPipeline<MutableDirectBuffer>[] rings = new RingPipeline[n];
            final UnsafeBuffer[] memory = new UnsafeBuffer[n];
            final ByteBuffer[] buffers = new ByteBuffer[n];
            final RingRole[][] roles = new RingRole[n][n];
            for (int rank = 0; rank < n; rank++) {
                rings[rank] = node.links(rank).newPipeline();
                buffers[rank] = ByteBuffer.allocateDirect(16 * chunk);
                memory[rank] = new UnsafeBuffer(0, 0);
                for (int start = 0; start < n; start++) {
                    roles[start][rank] = node.links(rank).role(start);
                }
            }
            runCalls(rings, memory, buffers, roles, 20_000);
            final long before = threads.getCurrentThreadAllocatedBytes();
            runCalls(rings, memory, buffers, roles, 2_000);
            final long after = threads.getCurrentThreadAllocatedBytes();
            final long calibration = threads.getCurrentThreadAllocatedBytes() - after;
            // Any allocation per call costs at least 16 bytes a call, 32,000 here; a one-off of a few dozen bytes
            // (a deoptimisation or a lazily loaded class when the machine is loaded) is not what this guards.
            final long allocated = after - before - calibration;
            assertTrue(allocated < 2_000, "bytes allocated by 2000 broadcasts: " + allocated);
        }
    }

    /** Every rank stepped by this one thread: the non-blocking pipelines make that possible. */
    private static void runCalls(
            final RingPipeline<MutableDirectBuffer>[] rings,
            final UnsafeBuffer[] memory,
            final ByteBuffer[] buffers,
            final RingRole[][] roles,
            final int calls) {
        final int n = rings.length;
        for (int call = 0; call < calls; call++) {
            final int start = call % n;
            final int bytes = 1 + (call * 977) % buffers[0].capacity();
            for (int rank = 0; rank < n; rank++) {
                memory[rank].wrap(buffers[rank]);
                rings[rank].reset(roles[start][rank], memory[rank], bytes, 512);
            }
            boolean done = false;
            while (!done) {
                done = true;
                for (int rank = 0; rank < n; rank++) {
                    rings[rank].progress();
                    done &= rings[rank].isDone();
                }
            }
        }
    }
}
