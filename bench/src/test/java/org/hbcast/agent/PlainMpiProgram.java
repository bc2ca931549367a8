package org.hbcast.agent;

import java.nio.ByteBuffer;
import java.util.Arrays;
import mpi.Datatype;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * A program that knows nothing of hbcast: it broadcasts with the bindings' own
 * {@code Comm.bcast} and checks every element. Run under the agent, its supported calls go to hbcast
 * and the rest to Open MPI; it must give the same data either way. It imports nothing of hbcast and
 * runs with a classpath of its own classes and mpi.jar only (and the test frame). Every checked
 * broadcast is a case.
 */
public final class PlainMpiProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            namesIntoFixedBuffers(world, report);
            largeAndTyped(world, report);
            passedThrough(world, report);
            communicatorsComeAndGo(world, report);
            return "checks=" + report.cases();
        });
    }

    /** The program: a name of 13 or 14 bytes into 256-byte buffers, then four bcasts of four ints. */
    private static void namesIntoFixedBuffers(Intracomm world, RankReport report) throws Exception {
        int rank = world.getRank();
        for (int rep = 0; rep < 5; rep++) {
            int root = rep % world.getSize();
            String name = "field-" + rep + (rep % 2 == 0 ? "-abcde" : "-abcdef");
            byte[] buf = new byte[256];
            Arrays.fill(buf, (byte) '#');
            byte[] mine = name.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            if (rank == root) {
                System.arraycopy(mine, 0, buf, 0, mine.length);
            }
            world.bcast(buf, rank == root ? mine.length : 256, MPI.BYTE, root);
            for (int i = 0; i < 256; i++) {
                byte want = i < mine.length ? mine[i] : (byte) '#';
                if (buf[i] != want) {
                    throw new AssertionError("rep " + rep + ": byte " + i + " is " + buf[i] + ", want " + want);
                }
            }
            report.pass("name " + rep);
            for (int k = 0; k < 4; k++) {
                int[] ints = rank == root ? new int[] {rep, k, rep * k, -rep} : new int[4];
                world.bcast(ints, 4, MPI.INT, root);
                if (!Arrays.equals(ints, new int[] {rep, k, rep * k, -rep})) {
                    throw new AssertionError("rep " + rep + " ints " + k + ": " + Arrays.toString(ints));
                }
                report.pass("name " + rep + ", ints " + k);
            }
        }
    }

    private static void largeAndTyped(Intracomm world, RankReport report) throws Exception {
        int rank = world.getRank();
        ByteBuffer big = ByteBuffer.allocateDirect(4 << 20);
        if (rank == 0) {
            for (int i = 0; i < big.capacity(); i++) {
                big.put(i, (byte) (i * 13 + 5));
            }
        }
        world.bcast(big, big.capacity(), MPI.BYTE, 0);
        for (int i = 0; i < big.capacity(); i++) {
            if (big.get(i) != (byte) (i * 13 + 5)) {
                throw new AssertionError("4 MiB: byte " + i);
            }
        }
        report.pass("4 MiB direct buffer");
        double[] field = new double[100_003];
        int last = world.getSize() - 1;
        if (rank == last) {
            Arrays.setAll(field, i -> Math.sin(i) * 1e3);
        }
        world.bcast(field, field.length, MPI.DOUBLE, last);
        for (int i = 0; i < field.length; i++) {
            if (field[i] != Math.sin(i) * 1e3) {
                throw new AssertionError("doubles: element " + i);
            }
        }
        report.pass("100003 doubles");
    }

    /**
     * A heap buffer, a derived datatype and an inter-communicator: hbcast leaves them to Open MPI,
     * and they still arrive.
     */
    private static void passedThrough(Intracomm world, RankReport report) throws Exception {
        int rank = world.getRank();
        ByteBuffer heap = ByteBuffer.allocate(64);
        if (rank == 0) {
            for (int i = 0; i < 64; i++) {
                heap.put(i, (byte) i);
            }
        }
        world.bcast(heap, 64, MPI.BYTE, 0);
        for (int i = 0; i < 64; i++) {
            if (heap.get(i) != (byte) i) {
                throw new AssertionError("heap buffer: byte " + i);
            }
        }
        report.pass("heap buffer");
        Datatype pairs = Datatype.createContiguous(2, MPI.INT);
        pairs.commit();
        int[] data = rank == 1 % world.getSize() ? new int[] {1, 2, 3, 4, 5, 6} : new int[6];
        world.bcast(data, 3, pairs, 1 % world.getSize());
        pairs.free();
        if (!Arrays.equals(data, new int[] {1, 2, 3, 4, 5, 6})) {
            throw new AssertionError("derived datatype: " + Arrays.toString(data));
        }
        report.pass("derived datatype");
        interCommunicator(world, report);
    }

    /** The lower half of the ranks broadcasts to the upper half over an inter-communicator. */
    private static void interCommunicator(Intracomm world, RankReport report) throws Exception {
        int rank = world.getRank();
        int half = world.getSize() / 2;
        int color = rank < half ? 0 : 1;
        Intracomm local = world.split(color, rank);
        // The bindings call it on the peer communicator, with the local one as the argument.
        Intercomm inter = world.createIntercomm(local, 0, color == 0 ? half : 0, 77);
        int[] data = rank == 0 ? new int[] {9, 8, 7} : new int[3];
        int root = color == 1 ? 0 : local.getRank() == 0 ? MPI.ROOT : MPI.PROC_NULL;
        inter.bcast(data, 3, MPI.INT, root);
        inter.free();
        local.free();
        boolean receives = color == 1;
        if (receives && !Arrays.equals(data, new int[] {9, 8, 7})) {
            throw new AssertionError("inter-communicator: " + Arrays.toString(data));
        }
        report.pass("inter-communicator");
    }

    /** Communicators made and freed in a loop, each broadcast on. */
    private static void communicatorsComeAndGo(Intracomm world, RankReport report) throws Exception {
        for (int i = 0; i < 40; i++) {
            Intracomm comm = i % 2 == 0 ? world.dup() : world.split(world.getRank() % 2, 0);
            long[] v = comm.getRank() == 0 ? new long[] {i, 7L * i} : new long[2];
            comm.bcast(v, 2, MPI.LONG, 0);
            if (v[0] != i || v[1] != 7L * i) {
                throw new AssertionError("communicator " + i + ": " + Arrays.toString(v));
            }
            comm.free();
            report.pass("communicator " + i);
        }
    }
}
