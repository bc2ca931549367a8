package org.hbcast;

import java.nio.ByteBuffer;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.testing.MpiTestProgram;

/**
 * MPI test program for the selector's inputs: every rank must make the same plans (compared across
 * ranks), broadcasts at the planned chunk sizes must deliver the data, and with {@code expect=ALG:CHUNK:RADIX}
 * a 256 KiB call must run exactly that plan, from the table. Cases: the plans agreed, the expected
 * plan (with {@code expect}), the three broadcasts; the 256 KiB plan as notes {@code algorithm},
 * {@code reason} and figures {@code chunkBytes}, {@code radix}.
 */
public final class TuningProgram {
    private TuningProgram() {}

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            String expect = rest.length > 0 ? rest[0].replaceFirst("^expect=", "") : "none";
            try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                long[] digest = new long[3];
                for (int b = 0; b < 40; b++) {
                    BcastPlan p = hb.plan(1L << b);
                    digest[0] = digest[0] * 31 + p.algorithm().hashCode();
                    digest[1] = digest[1] * 31 + p.chunkBytes();
                    digest[2] = digest[2] * 31 + p.radix();
                }
                long[] max = digest.clone();
                long[] min = digest.clone();
                world.allReduce(max, 3, MPI.LONG, MPI.MAX);
                world.allReduce(min, 3, MPI.LONG, MPI.MIN);
                report.check("every rank makes the same plans", () -> {
                    if (!Arrays.equals(max, min)) {
                        throw new IllegalStateException("ranks made different plans");
                    }
                });
                BcastPlan p = hb.plan(256 << 10);
                report.note("algorithm", p.algorithm())
                        .note("reason", p.reason())
                        .figure("chunkBytes", p.chunkBytes())
                        .figure("radix", p.radix());
                if (!expect.equals("none")) {
                    report.check("256 KiB runs " + expect + " from the table", () -> {
                        String got = p.algorithm() + ":" + p.chunkBytes() + ":" + p.radix();
                        if (!got.equals(expect) || !p.reason().startsWith("tuning table")) {
                            throw new IllegalStateException("expected plan " + expect + " from the table, got " + p);
                        }
                    });
                }
                for (int size : new int[] {64 << 10, (256 << 10) + 3, 1 << 20}) {
                    report.check(size + " bytes from the last rank", () -> check(world, hb, size));
                }
                return p.algorithm() + ":" + p.chunkBytes() + ":" + p.radix() + " (" + p.reason() + ")";
            }
        });
    }

    private static void check(Intracomm world, HierarchicalBcast hb, int size) throws Exception {
        ByteBuffer buf = ByteBuffer.allocateDirect(size);
        int rank = world.getRank();
        int root = world.getSize() - 1;
        for (int i = 0; i < size; i++) {
            buf.put(i, rank == root ? (byte) (i * 7 + 3) : 0);
        }
        hb.bcast(buf, size, MPI.BYTE, root);
        for (int i = 0; i < size; i++) {
            if (buf.get(i) != (byte) (i * 7 + 3)) {
                throw new IllegalStateException(
                        "size " + size + ": byte " + i + " is wrong with plan " + hb.plan(size));
            }
        }
    }
}
