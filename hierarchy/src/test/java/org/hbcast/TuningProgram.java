package org.hbcast;

import org.hbcast.plan.Plan;

import java.nio.ByteBuffer;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.testing.MpiTestProgram;

/**
 * MPI test program for the selector's inputs: every rank must make the same plans (compared across
 * ranks), broadcasts at the planned chunk sizes must deliver the data, and with {@code expect=ALG:CHUNK:RADIX}
 * a 256 KiB call must run exactly that plan, from the table.
 */
public final class TuningProgram {
    private TuningProgram() {
    }

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest) -> {
            String expect = rest.length > 0 ? rest[0].replaceFirst("^expect=", "") : "none";
            try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                long[] digest = new long[3];
                for (int b = 0; b < 40; b++) {
                    Plan p = hb.plan(1L << b);
                    digest[0] = digest[0] * 31 + p.algorithm().ordinal();
                    digest[1] = digest[1] * 31 + p.chunkBytes();
                    digest[2] = digest[2] * 31 + p.radix();
                }
                long[] max = digest.clone();
                long[] min = digest.clone();
                world.allReduce(max, 3, MPI.LONG, MPI.MAX);
                world.allReduce(min, 3, MPI.LONG, MPI.MIN);
                if (!Arrays.equals(max, min)) {
                    throw new IllegalStateException("ranks made different plans");
                }
                Plan p = hb.plan(256 << 10);
                if (!expect.equals("none")) {
                    String got = p.algorithm() + ":" + p.chunkBytes() + ":" + p.radix();
                    if (!got.equals(expect) || !p.reason().startsWith("tuning table")) {
                        throw new IllegalStateException("expected plan " + expect + " from the table, got " + p);
                    }
                }
                for (int size : new int[] {64 << 10, (256 << 10) + 3, 1 << 20}) {
                    check(world, hb, size);
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
                throw new IllegalStateException("size " + size + ": byte " + i + " is wrong with plan " + hb.plan(size));
            }
        }
    }
}
