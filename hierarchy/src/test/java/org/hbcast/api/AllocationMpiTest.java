package org.hbcast.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.BcastOptions;
import org.hbcast.BcastPlan;
import org.hbcast.BcastRequest;
import org.hbcast.HierarchicalBcast;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

    /**
     * One measured configuration: an instance created with these options on every rank, {@code bytes}
     * per call ({@code chunk} 0: the selector's), and the bytes per call the bindings force.
     */
    record Row(String algorithm, int bytes, int chunk, String intra, String counts, long perCall) {
        /** As the ranks take it in {@code rows=}: {@code algorithm:bytes:chunk:intra:counts}. */
        String arg() {
            return algorithm + ":" + bytes + ":" + chunk + ":" + intra + ":" + counts;
        }

        static Row parse(String arg) {
            String[] f = arg.split(":");
            if (f.length != 5) {
                throw new IllegalArgumentException("a row wants algorithm:bytes:chunk:intra:counts, got '" + arg + "'");
            }
            return new Row(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), f[3], f[4], 0);
        }

        BcastOptions options() {
            BcastOptions o = BcastOptions.defaults()
                    .withAlgorithm(BcastOptions.Algorithm.parse(algorithm))
                    .withIntra(BcastOptions.IntraNode.parse("intra", intra))
                    .withCounts(BcastOptions.CountRule.parse("counts", counts));
            return chunk > 0 ? o.withChunkBytes(chunk) : o;
        }

        @Override
        public String toString() {
            return algorithm + " " + bytes + " B in chunks of " + chunk + " over " + intra + ", counts " + counts;
        }
    }

    /**
     * The rows, a launch per layout and mode (a JVM per rank is the cost; the rows of a launch run one
     * after the other, each an instance of its own with its own warm-up and measurement).
     */
    static Stream<Arguments> launches() {
        return Stream.of(
                Arguments.of(
                        "bcast",
                        "4",
                        List.of(
                                new Row("auto", 64, 0, "auto", "root", 0), // the header carries it, on the node's board
                                // the same, past the header's first network message
                                new Row("auto", 8192, 0, "auto", "root", 0),
                                new Row("hierarchical", 1048576, 0, "fanout", "root", 0),
                                new Row("hierarchical", 1048576, 0, "ring", "root", 0),
                                new Row("knomial", 1048576, 0, "auto", "root", 0), // the flat tree, one chunk
                                // 16 chunks: twice the tree's window
                                new Row("knomial", 1048576, 65536, "auto", "root", 0),
                                new Row("hierarchical", 1048576, 0, "ring", "equal", 32), // the per-call agreement
                                new Row("native", 8192, 0, "auto", "root", 0))),
                Arguments.of(
                        "bcast",
                        "2,2",
                        List.of(
                                // the leaders' tree and the ring, no header
                                new Row("hierarchical", 1048576, 0, "ring", "trusted", 0),
                                // the leaders' tree and the fan-out, no header
                                new Row("hierarchical", 1048576, 0, "fanout", "trusted", 0),
                                // the same with the leaders' call header
                                new Row("hierarchical", 1048576, 0, "ring", "root", 32),
                                new Row("auto", 64, 0, "auto", "root", 32))), // the leaders' call header carries it
                // Non-blocking calls too, each issued and then tested until complete: the queue's slots and
                // their request objects are made once, so nothing per call but what the bindings force (Open
                // MPI's MPI_Ibcast of the native plan returns an mpi.Request).
                Arguments.of(
                        "ibcast",
                        "4",
                        List.of(
                                new Row("auto", 64, 0, "auto", "root", 0), // the header carries it
                                // Four chunks each: pipelined as a megabyte is, in a quarter of the suite's time.
                                new Row("hierarchical", 262144, 65536, "ring", "root", 0),
                                new Row("native", 8192, 0, "auto", "root", 32))), // MPI_Ibcast's request
                Arguments.of(
                        "ibcast",
                        "2,2",
                        List.of(
                                // the leaders' tree, no header
                                new Row("hierarchical", 262144, 65536, "fanout", "trusted", 0))));
    }

    @ParameterizedTest(name = "{0} on nodes {1}: {2}")
    @MethodSource("launches")
    void callsAllocateNothingAfterWarmUp(String mode, String nodes, List<Row> rows) {
        // One real node unless virtual nodes are named.
        StringBuilder arg = new StringBuilder("rows=");
        for (Row row : rows) {
            arg.append(arg.length() > 5 ? ";" : "").append(row.arg());
        }
        MpiOutcome out = MpiLaunch.body(AllocationMpiTest::measure)
                .layout(nodes)
                .env("HBCAST_TRIALS", "0")
                .args(arg.toString(), "calls=" + CALLS, "mode=" + mode)
                .run()
                .assertAllRanksOk();
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            long bound = SLACK + row.perCall() * CALLS;
            for (int r = 0; r < out.ranks(); r++) {
                String where = "rank " + r + ", " + mode + " " + row;
                assertEquals(CALLS, out.longFigure(r, "calls " + i), out.describe(where));
                long allocated = out.longFigure(r, "allocatedBytes " + i);
                assertTrue(
                        allocated < bound,
                        out.describe(where + ": allocated " + allocated + " bytes in " + CALLS + " calls, under "
                                + bound + " expected"));
                if (!row.algorithm().equals("auto") && mode.equals("bcast")) {
                    String plan =
                            row.algorithm().equals("hierarchical") ? "hierarchical/" + row.intra() : row.algorithm();
                    assertEquals(plan, out.note(r, "plan " + i), out.describe(where));
                }
            }
        }
    }

    /**
     * On every rank, per row of {@code rows=}: bytes the JVM allocates per whole host {@code bcast}
     * call after warm-up, measured with the thread's allocation counter ({@code
     * com.sun.management.ThreadMXBean}) over {@code calls} calls of the row's bytes each, roots
     * rotating, direct buffers, after as many calls of warm-up. A case per row (the measurement: the
     * test judges it), figures {@code allocatedBytes <row>} and {@code calls <row>}, note {@code plan <row>}.
     */
    static void measure(Ranks ranks) throws Exception {
        int calls = ranks.intArg("calls", CALLS);
        boolean nonBlocking = ranks.arg("mode", "bcast").equals("ibcast");
        List<Ranks.Named> cases = new ArrayList<>();
        String[] rows = ranks.arg("rows", "").split(";");
        for (int i = 0; i < rows.length; i++) {
            Row row = Row.parse(rows[i]);
            int index = i;
            cases.add(Ranks.named(
                    "row " + i + " (" + row + "): " + calls + " calls measured",
                    () -> measure(ranks.world(), row, index, calls, nonBlocking, ranks.report())));
        }
        ranks.checkAll(cases);
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

    private static String measure(
            Intracomm world, Row row, int index, int calls, boolean nonBlocking, RankReport report) throws Exception {
        int bytes = row.bytes();
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().getId();
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        int size = world.getSize();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world, row.options())) {
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
            report.figure("allocatedBytes " + index, total)
                    .figure("calls " + index, calls)
                    .note("plan " + index, plan);
            return "bytes=" + total + " calls=" + calls + " plan=" + plan;
        }
    }
}
