package org.hbcast.bench;

import java.nio.ByteBuffer;
import java.util.Locale;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.HierarchicalBcast;

/**
 * The clock of {@link FirstCreate} and {@link BareFirstCreate}: each rank's time in a JVM's first
 * {@code create} (from a barrier) and its process CPU meanwhile, the first call and the next ones.
 * Loads nothing a program would not: no option parser, no formatter before the figures exist.
 */
final class FirstCreateClock {
    private FirstCreateClock() {}

    /**
     * Times it on every rank (collective over {@code COMM_WORLD}) and prints each rank's figures and
     * the slowest on rank 0.
     *
     * @param bytes bytes of each call
     * @param calls calls timed after the first
     * @param comm time {@code MPI.COMM_WORLD.bcast}'s first call instead of {@code create}
     */
    static void run(int bytes, int calls, boolean comm) throws MPIException {
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        double[] ms = new double[size * 4];
        // The JDK's management starts here, not after the barrier: its first use takes 50-120 ms of a
        // cold JVM's CPU, which would overlap the other ranks' create (docs/tuning.md).
        processCpuNanos();
        MPI.COMM_WORLD.barrier();
        long cpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        HierarchicalBcast hb = comm ? null : HierarchicalBcast.create(MPI.COMM_WORLD, BcastOptions.defaults());
        long t1 = System.nanoTime();
        long cpu1 = processCpuNanos();
        bcast(hb, buf, bytes);
        long t2 = System.nanoTime();
        long cpu2 = processCpuNanos();
        for (int i = 0; i < calls; i++) {
            bcast(hb, buf, bytes);
        }
        long t3 = System.nanoTime();
        ms[rank * 4] = (t1 - t0) / 1e6;
        ms[rank * 4 + 1] = (t2 - t1) / 1e6;
        ms[rank * 4 + 2] = (t3 - t2) / 1e6 / Math.max(calls, 1);
        // Without an instance of its own the first call is where the agent makes one: its CPU is create's.
        ms[rank * 4 + 3] = (comm ? cpu2 - cpu1 : cpu1 - cpu0) / 1e6;
        MPI.COMM_WORLD.allReduce(ms, ms.length, MPI.DOUBLE, MPI.SUM);
        if (hb != null) {
            hb.close();
        }
        if (rank == 0) {
            StringBuilder out = new StringBuilder();
            double[] slowest = new double[4];
            for (int r = 0; r < size; r++) {
                out.append(String.format(
                        Locale.ROOT,
                        "rank %d: %s %.1f ms, first call %.2f ms (process CPU %.0f ms in %s), next %d calls %.3f ms"
                                + " each%n",
                        r,
                        comm ? "before it" : "create",
                        ms[r * 4],
                        ms[r * 4 + 1],
                        ms[r * 4 + 3],
                        comm ? "it" : "create",
                        calls,
                        ms[r * 4 + 2]));
                for (int k = 0; k < 4; k++) {
                    slowest[k] = Math.max(slowest[k], ms[r * 4 + k]);
                }
            }
            out.append(String.format(
                    Locale.ROOT,
                    "slowest: %s %.1f ms, first call %.2f ms (process CPU %.0f ms in %s), next calls %.3f ms each"
                            + " (%d B)%n",
                    comm ? "before it" : "create",
                    slowest[0],
                    slowest[1],
                    slowest[3],
                    comm ? "it" : "create",
                    slowest[2],
                    bytes));
            System.out.print(out);
        }
    }

    /**
     * This JVM's CPU time, its JIT's and collector's threads included: on a machine whose cores other
     * work takes, the wall time of a create says more about the load than about the create.
     */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static void bcast(HierarchicalBcast hb, ByteBuffer buf, int bytes) throws MPIException {
        if (hb == null) {
            MPI.COMM_WORLD.bcast(buf, bytes, MPI.BYTE, 0);
        } else {
            hb.bcast(buf, bytes, MPI.BYTE, 0);
        }
    }
}
