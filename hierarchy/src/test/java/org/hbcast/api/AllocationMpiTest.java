package org.hbcast.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.BcastPlan;
import org.hbcast.BcastRequest;
import org.hbcast.HierarchicalBcast;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Whole host {@code bcast} calls allocate nothing after warm-up (see {@link #measure}):
 * {@value #CALLS} calls after as many of warm-up, roots rotating, on every rank of four: the node's
 * board of headers, the ring, the fan-out, the flat tree and the leaders' tree (persistent requests,
 * see {@code TreeBroadcast}), on one node and on two virtual nodes.
 *
 * <p>The bound is {@value #SLACK} bytes for all {@value #CALLS} calls, not per call: one object of
 * the smallest size (16 bytes) per call would show as 16,000 bytes, so anything under it is zero
 * per call. The slack is for one-off work of the JVM on the measured thread that does not grow with
 * the calls (a call site resolved late, a deoptimisation in the C1-only JVM of the launch); none
 * was seen here (every row measured 0), but a bound of 0 would fail on it.
 *
 * <p>Where Open MPI's bindings force an allocation, a row's {@code perCall} allows it, measured
 * here as exactly that: an {@code mpi.Request} of 32 bytes per non-blocking call that cannot be
 * persistent. Across nodes under the root's count, the call header goes down the leaders under a
 * tag of its call's own (so that a header of another call is never matched as this one's), and a
 * persistent request is bound to one tag: a leader posts a receive in each call it does not root,
 * a root sends one per child leader (32 bytes a call at a leader of two nodes of two, 8 at the
 * others). Under equal counts the per-call agreement is an {@code iAllReduce}, and the bindings
 * have no persistent collectives: 32 bytes a call on every rank.
 */
class AllocationMpiTest {
    private static final int CALLS = 1000;
    private static final long SLACK = 1024;

    @ParameterizedTest(name = "{0} {1} B in chunks of {2} over {3} on nodes {4}, counts {5}")
    @CsvSource({
        // algorithm, bytes, chunk (0: the selector's), intra, nodes, counts, bytes per call allowed
        "auto, 64, 0, auto, 4, root, 0", // the header carries it, on the node's board
        "auto, 8192, 0, auto, 4, root, 0", // the same, past the header's first network message
        "hierarchical, 1048576, 0, fanout, 4, root, 0",
        "hierarchical, 1048576, 0, ring, 4, root, 0",
        "knomial, 1048576, 0, auto, 4, root, 0", // the flat tree, one chunk
        "knomial, 1048576, 65536, auto, 4, root, 0", // 16 chunks: twice the tree's window
        "hierarchical, 1048576, 0, ring, '2,2', trusted, 0", // the leaders' tree and the ring, no header
        "hierarchical, 1048576, 0, fanout, '2,2', trusted, 0", // the leaders' tree and the fan-out, no header
        "hierarchical, 1048576, 0, ring, '2,2', root, 32", // the same with the leaders' call header
        "auto, 64, 0, auto, '2,2', root, 32", // the leaders' call header carries it
        "hierarchical, 1048576, 0, ring, 4, equal, 32", // the per-call agreement
        "native, 8192, 0, auto, 4, root, 0"
    })
    void callsAllocateNothingAfterWarmUp(
            String algorithm, int bytes, int chunk, String intra, String nodes, String counts, long perCall) {
        // One real node unless virtual nodes are named.
        MpiLaunch launch = MpiLaunch.body(AllocationMpiTest::measure).layout(nodes);
        if (chunk > 0) {
            launch = launch.env("HBCAST_CHUNK_BYTES", Integer.toString(chunk));
        }
        MpiOutcome out = launch.env("HBCAST_TRIALS", "0")
                .env("HBCAST_ALGORITHM", algorithm)
                .env("HBCAST_INTRA", intra)
                .env("HBCAST_COUNTS", counts)
                .args("bytes=" + bytes, "calls=" + CALLS)
                .run()
                .assertAllRanksOk();
        long bound = SLACK + perCall * CALLS;
        for (int r = 0; r < out.ranks(); r++) {
            assertEquals(CALLS, out.longFigure(r, "calls"), out.describe("rank " + r));
            long allocated = out.longFigure(r, "allocatedBytes");
            assertTrue(
                    allocated < bound,
                    out.describe("rank " + r + " allocated " + allocated + " bytes in " + CALLS + " calls, under "
                            + bound + " expected"));
            if (!algorithm.equals("auto")) {
                String plan = algorithm.equals("hierarchical") ? "hierarchical/" + intra : algorithm;
                assertEquals(plan, out.note(r, "plan"), out.describe("rank " + r));
            }
        }
    }

    /**
     * Non-blocking calls too, each issued and then tested until complete: the queue's slots and
     * their request objects are made once, so nothing per call but what the bindings force (Open
     * MPI's {@code MPI_Ibcast} of the native plan returns an {@code mpi.Request}).
     */
    @ParameterizedTest(name = "iBcast {0} {1} B over {3} on nodes {4}, counts {5}")
    @CsvSource({
        "auto, 64, 0, auto, 4, root, 0", // the header carries it
        // Four chunks each: pipelined as a megabyte is, in a quarter of the suite's time.
        "hierarchical, 262144, 65536, ring, 4, root, 0",
        "hierarchical, 262144, 65536, fanout, '2,2', trusted, 0", // the leaders' tree, no header
        "native, 8192, 0, auto, 4, root, 32" // MPI_Ibcast's request
    })
    void nonBlockingCallsAllocateNothingAfterWarmUp(
            String algorithm, int bytes, int chunk, String intra, String nodes, String counts, long perCall) {
        MpiLaunch launch = MpiLaunch.body(AllocationMpiTest::measure).layout(nodes);
        if (chunk > 0) {
            launch = launch.env("HBCAST_CHUNK_BYTES", Integer.toString(chunk));
        }
        MpiOutcome out = launch.env("HBCAST_TRIALS", "0")
                .env("HBCAST_ALGORITHM", algorithm)
                .env("HBCAST_INTRA", intra)
                .env("HBCAST_COUNTS", counts)
                .args("bytes=" + bytes, "calls=" + CALLS, "mode=ibcast")
                .run()
                .assertAllRanksOk();
        long bound = SLACK + perCall * CALLS;
        for (int r = 0; r < out.ranks(); r++) {
            assertEquals(CALLS, out.longFigure(r, "calls"), out.describe("rank " + r));
            long allocated = out.longFigure(r, "allocatedBytes");
            assertTrue(
                    allocated < bound,
                    out.describe("rank " + r + " allocated " + allocated + " bytes in " + CALLS + " iBcasts, under "
                            + bound + " expected"));
        }
    }

    /**
     * On every rank: bytes the JVM allocates per whole host {@code bcast} call after warm-up, measured
     * with the thread's allocation counter ({@code com.sun.management.ThreadMXBean}) over {@code calls}
     * calls of {@code bytes} each, roots rotating, direct buffers, after as many calls of warm-up. One
     * case (the measurement: the test judges it), figures {@code allocatedBytes} and {@code calls},
     * note {@code plan}.
     */
    static void measure(Ranks ranks) throws Exception {
        int bytes = ranks.intArg("bytes", 65536);
        int calls = ranks.intArg("calls", CALLS);
        boolean nonBlocking = ranks.arg("mode", "bcast").equals("ibcast");
        ranks.checkAll(List.of(Ranks.named(
                calls + " calls of " + bytes + " B measured",
                () -> measure(ranks.world(), bytes, calls, nonBlocking, ranks.report()))));
    }

    /** One call: blocking, or issued and tested until complete. */
    private static void call(HierarchicalBcast hb, ByteBuffer buf, int bytes, int root, boolean nonBlocking)
            throws Exception {
        if (!nonBlocking) {
            hb.bcast(buf, bytes, MPI.BYTE, root);
            return;
        }
        BcastRequest r = hb.iBcast(buf, bytes, MPI.BYTE, root);
        while (!r.test()) {
            Thread.onSpinWait();
        }
    }

    private static String measure(Intracomm world, int bytes, int calls, boolean nonBlocking, RankReport report)
            throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().getId();
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        int size = world.getSize();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            for (int i = 0; i < calls; i++) {
                call(hb, buf, bytes, i % size, nonBlocking);
            }
            // Once outside the measurement: the counter's own first call may allocate.
            long before = threads.getThreadAllocatedBytes(me);
            before = threads.getThreadAllocatedBytes(me);
            for (int i = 0; i < calls; i++) {
                call(hb, buf, bytes, i % size, nonBlocking);
            }
            long total = threads.getThreadAllocatedBytes(me) - before;
            BcastPlan p = hb.plan(bytes);
            String plan = p.hierarchical() ? p.algorithm() + "/" + p.intra() : p.algorithm();
            // Recorded only now: the report allocates, and must not count.
            report.figure("allocatedBytes", total).figure("calls", calls).note("plan", plan);
            return "bytes=" + total + " calls=" + calls + " plan=" + plan;
        }
    }
}
