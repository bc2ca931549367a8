package org.hbcast;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Map;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * Bytes the JVM allocates per whole host {@code bcast} call after warm-up, measured with the
 * thread's allocation counter ({@code com.sun.management.ThreadMXBean}) over {@code calls} calls
 * of {@code bytes} each, roots rotating, direct buffers, after as many calls of warm-up. One case (the measurement: the test judges
 * it), figures {@code allocatedBytes} and {@code calls}, note {@code plan}; prints
 * {@code bytes=<allocated> calls=<n> plan=<label>}.
 */
public final class AllocationProgram {
    public static void main(String[] args) throws Exception {
        Map<String, String> opt = BcastMatrixProgram.parse(args);
        int bytes = Integer.parseInt(opt.getOrDefault("bytes", "65536"));
        int calls = Integer.parseInt(opt.getOrDefault("calls", "2000"));
        MpiTestProgram.run(args, (world, rest, report) -> measure(world, bytes, calls, report));
    }

    private static String measure(Intracomm world, int bytes, int calls, RankReport report) throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long me = Thread.currentThread().getId();
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        int size = world.getSize();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            for (int i = 0; i < calls; i++) {
                hb.bcast(buf, bytes, MPI.BYTE, i % size);
            }
            // Once outside the measurement: the counter's own first call may allocate.
            long before = threads.getThreadAllocatedBytes(me);
            before = threads.getThreadAllocatedBytes(me);
            for (int i = 0; i < calls; i++) {
                hb.bcast(buf, bytes, MPI.BYTE, i % size);
            }
            long total = threads.getThreadAllocatedBytes(me) - before;
            BcastPlan p = hb.plan(bytes);
            String plan = p.hierarchical() ? p.algorithm() + "/" + p.intra() : p.algorithm();
            // Recorded only now: the report allocates, and must not count.
            report.pass(calls + " calls of " + bytes + " B measured")
                    .figure("allocatedBytes", total)
                    .figure("calls", calls)
                    .note("plan", plan);
            return "bytes=" + total + " calls=" + calls + " plan=" + plan;
        }
    }
}
