package org.hbcast;

import org.hbcast.select.Explanation;
import org.hbcast.plan.Plan;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Map;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.testing.MpiTestProgram;

/**
 * Bytes the JVM allocates per whole host {@code bcast} call after warm-up, measured with the
 * thread's allocation counter ({@code com.sun.management.ThreadMXBean}) over {@code calls} calls
 * of {@code bytes} each, roots rotating, direct buffers, after as many calls of warm-up. Prints
 * {@code bytes=<allocated> calls=<n> plan=<label>}.
 */
public final class AllocationProgram {
    public static void main(String[] args) throws Exception {
        Map<String, String> opt = BcastMatrixProgram.parse(args);
        int bytes = Integer.parseInt(opt.getOrDefault("bytes", "65536"));
        int calls = Integer.parseInt(opt.getOrDefault("calls", "2000"));
        MpiTestProgram.run(args, (world, rest) -> measure(world, bytes, calls));
    }

    private static String measure(Intracomm world, int bytes, int calls) throws Exception {
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
            Plan p = hb.plan(bytes);
            return "bytes=" + total + " calls=" + calls + " plan=" + Explanation.name(p.algorithm(), p.intra());
        }
    }
}
