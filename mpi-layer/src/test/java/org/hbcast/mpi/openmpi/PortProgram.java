package org.hbcast.mpi.openmpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.LongBuffer;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiPersistentRequest;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.mpi.port.ProbedMessage;
import org.hbcast.mpi.port.ReduceOp;
import org.hbcast.mpi.port.ThreadLevel;
import org.hbcast.testing.MpiTestProgram;
import org.hbcast.testing.RankReport;

/**
 * Every operation of the port's Open MPI binding on real ranks, each a case on every rank: the
 * mappings against the bindings' own constants (datatypes, error classes, thread level), the library's
 * queries, communicators, blocking and non-blocking collectives, point to point immediate and
 * persistent with reused request slots, probes, cancellation, and an MPI error coming back as a
 * failure of its class and, at the API's edge, as the bindings' own exception. Run on four ranks.
 */
public final class PortProgram {
    private static final int TAG = 0x5A00;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            MpiComm comm = OpenMpi.comm(world);
            report.check("datatypes", PortProgram::datatypes);
            report.check("error classes", PortProgram::errorClasses);
            report.check("library", () -> library(comm));
            report.check("communicators", () -> communicators(comm));
            report.check("blocking collectives", () -> blockingCollectives(comm));
            report.check("non-blocking collectives", () -> nonBlockingCollectives(comm));
            report.check("point to point", () -> pointToPoint(comm));
            report.check("persistent requests", () -> persistent(comm));
            report.check("probe and cancel", () -> probeAndCancel(comm));
            report.check("errors", () -> errors(comm, report));
            return "the port's operations";
        });
    }

    private static void datatypes() {
        Set<Datatype> seen = new HashSet<>();
        for (BasicType t : BasicType.values()) {
            Datatype d = OpenMpi.datatype(t);
            require(seen.add(d), t + " shares its datatype");
            require(OpenMpi.basicType(d) == t, t + " does not map back");
            require(OpenMpi.describe(d).equals("MPI." + t.name()), t + " is described as " + OpenMpi.describe(d));
        }
        Datatype[] others = {MPI.INT2, MPI.SHORT_INT, MPI.LONG_INT, MPI.FLOAT_INT, MPI.DOUBLE_INT, MPI.PACKED};
        String[] names = {"MPI.INT2", "MPI.SHORT_INT", "MPI.LONG_INT", "MPI.FLOAT_INT", "MPI.DOUBLE_INT", "MPI.PACKED"};
        for (int i = 0; i < others.length; i++) {
            require(OpenMpi.basicType(others[i]) == null, names[i] + " is not a basic type");
            require(OpenMpi.describe(others[i]).equals(names[i]), names[i] + ": " + OpenMpi.describe(others[i]));
        }
        require(OpenMpi.basicType(MPI.DATATYPE_NULL) == null && OpenMpi.basicType(null) == null, "null types");
        require(OpenMpi.describe(MPI.DATATYPE_NULL).equals("MPI.DATATYPE_NULL"), "MPI.DATATYPE_NULL");
    }

    private static void errorClasses() {
        ErrorClassTable table = OpenMpiErrors.bindings();
        Set<Integer> codes = new HashSet<>();
        for (MpiErrorClass c : MpiErrorClass.values()) {
            int code = OpenMpiErrors.bindingCode(c);
            require(codes.add(code), c + " shares number " + code);
            require(table.errorClass(code) == c, c + " does not map back from " + code);
            MPIException e = OpenMpi.mpiException(new MpiFailure(c, "m"));
            require(e.getErrorClass() == code, c + ": class " + e.getErrorClass() + ", not " + code);
            require(OpenMpi.errorClass(e) == c, c + " read back as " + OpenMpi.errorClass(e));
        }
        require(OpenMpiErrors.bindingCode(MpiErrorClass.ERR_TRUNCATE) == MPI.ERR_TRUNCATE, "truncate");
        require(OpenMpiErrors.bindingCode(MpiErrorClass.SUCCESS) == MPI.SUCCESS, "success");
        require(table.errorClass(MPI.ERR_WIN) == MpiErrorClass.ERR_UNKNOWN, "an unnamed class is unknown");
    }

    private static void library(MpiComm comm) throws Exception {
        int level = MPI.queryThread();
        ThreadLevel expected = level == MPI.THREAD_MULTIPLE
                ? ThreadLevel.MULTIPLE
                : level == MPI.THREAD_SERIALIZED
                        ? ThreadLevel.SERIALIZED
                        : level == MPI.THREAD_FUNNELED ? ThreadLevel.FUNNELED : ThreadLevel.SINGLE;
        require(
                comm.library().threadLevel() == expected,
                "thread level " + comm.library().threadLevel());
        require(comm.library().version().equals(MPI.getLibVersion()), "version");
        require(
                comm.library().version().contains("Open MPI"),
                "version: " + comm.library().version());
        require(comm.library().processorName().equals(MPI.getProcessorName()), "processor name");
        MpiComm world = comm.library().world();
        require(world == OpenMpi.world(), "one world");
        require(world.rank() == MPI.COMM_WORLD.getRank() && world.size() == MPI.COMM_WORLD.getSize(), "world");
    }

    private static void communicators(MpiComm comm) throws Exception {
        int rank = comm.rank();
        int size = comm.size();
        MpiComm dup = comm.dup();
        require(dup.rank() == rank && dup.size() == size, "dup");
        dup.returnErrors();
        // Halves by parity, ordered by descending rank.
        MpiComm half = dup.split(rank % 2, -rank);
        int halfSize = (size + 1 - rank % 2) / 2;
        require(half.size() == halfSize, "split size " + half.size());
        require(half.rank() == halfSize - 1 - rank / 2, "split rank " + half.rank());
        int[] world = half.worldRanks(new int[] {0, half.size() - 1});
        int first = rank % 2 + 2 * (halfSize - 1);
        require(world[0] == first && world[1] == rank % 2, "world ranks " + Arrays.toString(world));
        half.free();
        MpiComm none = dup.split(rank == 0 ? MpiComm.UNDEFINED : 1, rank);
        require(rank == 0 ? none == null : none.size() == size - 1 && none.rank() == rank - 1, "split UNDEFINED");
        int[] outside = comm.worldRanks(new int[] {rank});
        require(outside[0] == MPI.COMM_WORLD.getRank(), "world rank of the world");
        if (none != null) {
            none.free();
        }
        MpiComm node = dup.splitByNode(rank);
        // One machine: every rank shares memory with every other.
        require(node.size() == size && node.rank() == rank, "split by node " + node.rank() + " of " + node.size());
        node.free();
        dup.free();
    }

    private static void blockingCollectives(MpiComm comm) throws Exception {
        int rank = comm.rank();
        int size = comm.size();
        int root = size - 1;
        boolean isRoot = rank == root;
        for (BasicType t : BasicType.values()) {
            Object array = arrayOf(t, 5);
            if (isRoot) {
                fill(array);
            }
            int count = t == BasicType.FLOAT_COMPLEX || t == BasicType.DOUBLE_COMPLEX ? 2 : 5;
            comm.bcast(array, count, t, root);
            Object expected = arrayOf(t, 5);
            fill(expected);
            Object[] got = boxed(array);
            Object[] want = boxed(expected);
            // A complex element is two entries: two of them fill four, and the fifth is not sent.
            int sent = count * (t.bytes() / bytesPerEntry(array));
            require(Arrays.equals(Arrays.copyOf(got, sent), Arrays.copyOf(want, sent)), t + " bcast");
            require(isRoot || sent == 5 || got[4].equals(boxed(arrayOf(t, 5))[4]), t + " bcast past its count");
        }
        ByteBuffer direct = ByteBuffer.allocateDirect(64);
        if (isRoot) {
            for (int i = 0; i < 64; i++) {
                direct.put(i, (byte) i);
            }
        }
        comm.bcast(direct, 64, BasicType.BYTE, root);
        for (int i = 0; i < 64; i++) {
            require(direct.get(i) == (byte) i, "direct bcast byte " + i);
        }
        int[] max = {rank, -rank};
        comm.allReduce(max, 2, ReduceOp.MAX);
        require(max[0] == size - 1 && max[1] == 0, "allReduce MAX " + Arrays.toString(max));
        int[] min = {rank};
        comm.allReduce(min, 1, ReduceOp.MIN);
        require(min[0] == 0, "allReduce MIN");
        byte[] bytes = new byte[2 * size];
        comm.allGather(new byte[] {(byte) rank, (byte) (rank + 100)}, 2, bytes);
        int[] ints = new int[size];
        comm.allGather(new int[] {rank * 1000}, 1, ints);
        long[] longs = new long[size];
        comm.allGather(new long[] {(long) rank << 40}, 1, longs);
        for (int r = 0; r < size; r++) {
            require(bytes[2 * r] == r && bytes[2 * r + 1] == r + 100, "allGather bytes");
            require(ints[r] == r * 1000 && longs[r] == (long) r << 40, "allGather ints, longs");
        }
    }

    private static void nonBlockingCollectives(MpiComm comm) throws Exception {
        int rank = comm.rank();
        int size = comm.size();
        MpiRequest slot = comm.newRequest();
        require(slot.test(), "an empty slot is complete");
        LongBuffer words = ByteBuffer.allocateDirect(2 * Long.BYTES)
                .order(ByteOrder.nativeOrder())
                .asLongBuffer();
        LongBuffer result = ByteBuffer.allocateDirect(Long.BYTES)
                .order(ByteOrder.nativeOrder())
                .asLongBuffer();
        // The same slot for every collective: each refills it.
        for (int round = 0; round < 3; round++) {
            words.put(0, rank + round).put(1, -rank);
            comm.iAllReduce(words, 2, ReduceOp.MAX, slot);
            await(slot);
            require(words.get(0) == size - 1 + round && words.get(1) == 0, "iAllReduce round " + round);
            words.put(0, 10L * rank);
            comm.iReduce(words, result, 1, ReduceOp.MAX, 0, slot);
            await(slot);
            require(rank != 0 || result.get(0) == 10L * (size - 1), "iReduce round " + round);
            comm.iBarrier(slot);
            await(slot);
        }
    }

    private static void pointToPoint(MpiComm comm) throws Exception {
        int rank = comm.rank();
        int size = comm.size();
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;
        ByteBuffer out = ByteBuffer.allocateDirect(256);
        ByteBuffer in = ByteBuffer.allocateDirect(256);
        MpiRequest send = comm.newRequest();
        MpiRequest receive = comm.newRequest();
        for (int round = 0; round < 4; round++) {
            out.putInt(0, rank * 100 + round);
            comm.iRecv(in, 256, left, TAG, receive);
            comm.iSend(out, 256, right, TAG, send);
            await(receive);
            await(send);
            require(in.getInt(0) == left * 100 + round, "iSend/iRecv round " + round);
        }
        out.putInt(0, rank);
        comm.sendRecv(out, 4, right, TAG + 1, in, 4, MpiComm.ANY_SOURCE, TAG + 1);
        require(in.getInt(0) == left, "sendRecv from any source");
        if (rank % 2 == 0 && rank + 1 < size) {
            out.putInt(0, 7);
            comm.send(out, 4, rank + 1, TAG + 2);
            comm.recv(in, 4, rank + 1, TAG + 2);
            require(in.getInt(0) == 8, "send, then recv");
        } else if (rank % 2 == 1) {
            comm.recv(in, 4, MpiComm.ANY_SOURCE, TAG + 2);
            require(in.getInt(0) == 7, "recv from any source");
            out.putInt(0, 8);
            comm.send(out, 4, rank - 1, TAG + 2);
        }
    }

    private static void persistent(MpiComm comm) throws Exception {
        int rank = comm.rank();
        int size = comm.size();
        int right = (rank + 1) % size;
        int left = (rank + size - 1) % size;
        ByteBuffer out = ByteBuffer.allocateDirect(Long.BYTES).order(ByteOrder.nativeOrder());
        ByteBuffer in = ByteBuffer.allocateDirect(Long.BYTES).order(ByteOrder.nativeOrder());
        MpiPersistentRequest receive = comm.recvInit(in, Long.BYTES, left, TAG + 3);
        MpiPersistentRequest send = comm.sendInit(out, Long.BYTES, right, TAG + 3);
        for (int round = 0; round < 5; round++) {
            out.putLong(0, 1000L * rank + round);
            receive.start();
            send.start();
            await(send);
            receive.waitFor();
            require(in.getLong(0) == 1000L * left + round, "persistent round " + round);
        }
        receive.free();
        send.free();
    }

    private static void probeAndCancel(MpiComm comm) throws Exception {
        int rank = comm.rank();
        int size = comm.size();
        ProbedMessage probed = new ProbedMessage();
        require(!comm.iProbe(MpiComm.ANY_SOURCE, TAG + 4, probed), "nothing to probe yet");
        ByteBuffer buf = ByteBuffer.allocateDirect(32);
        MpiRequest slot = comm.newRequest();
        // No rank sends before every rank has probed for nothing.
        comm.iBarrier(slot);
        await(slot);
        if (rank == 0) {
            for (int r = 1; r < size; r++) {
                comm.send(buf, r, r, TAG + 4);
            }
        } else {
            while (!comm.iProbe(MpiComm.ANY_SOURCE, TAG + 4, probed)) {
                Thread.onSpinWait();
            }
            require(
                    probed.source() == 0 && probed.bytes() == rank,
                    "probed " + probed.source() + ", " + probed.bytes());
            comm.recv(buf, probed.bytes(), probed.source(), TAG + 4);
        }
        // A receive nobody sends to, cancelled: it completes (as cancelled), the slot is free again.
        comm.iRecv(buf, 32, MpiComm.ANY_SOURCE, TAG + 5, slot);
        require(!slot.test(), "a receive nobody sends to is pending");
        slot.cancel();
        slot.waitFor();
        // A send freed in flight still arrives.
        ByteBuffer word = ByteBuffer.allocateDirect(4);
        word.putInt(0, rank);
        comm.iSend(word, 4, (rank + 1) % size, TAG + 6, slot);
        slot.free();
        comm.recv(buf, 4, (rank + size - 1) % size, TAG + 6);
        require(buf.getInt(0) == (rank + size - 1) % size, "a freed send arrived");
        // The freed send's buffer must live until the peer has it: past a barrier after the receives.
        comm.iBarrier(slot);
        await(slot);
        java.lang.ref.Reference.reachabilityFence(word);
    }

    private static void errors(MpiComm comm, RankReport report) throws Exception {
        MpiComm dup = comm.dup();
        dup.returnErrors();
        ByteBuffer buf = ByteBuffer.allocateDirect(8);
        try {
            dup.send(buf, 8, dup.size() + 3, TAG);
            throw new AssertionError("a send to a rank out of range did not fail");
        } catch (MpiFailure f) {
            require(f.errorClass() == MpiErrorClass.ERR_RANK, "class " + f.errorClass() + ": " + f.getMessage());
            require(f.getCause() instanceof MPIException, "the bindings' error is the cause");
            MPIException e = OpenMpi.mpiException(f);
            require(e == f.getCause(), "the API gives the program the bindings' own exception");
            require(e.getErrorClass() == MPI.ERR_RANK, "its class is the bindings' ERR_RANK");
            report.note("error", f.getMessage());
        } finally {
            dup.free();
        }
    }

    private static void await(MpiRequest r) throws MpiFailure {
        while (!r.test()) {
            Thread.onSpinWait();
        }
    }

    private static Object arrayOf(BasicType t, int n) {
        return switch (t) {
            case BYTE -> new byte[n];
            case BOOLEAN -> new boolean[n];
            case CHAR -> new char[n];
            case SHORT -> new short[n];
            case INT -> new int[n];
            case LONG -> new long[n];
            case FLOAT, FLOAT_COMPLEX -> new float[n];
            case DOUBLE, DOUBLE_COMPLEX -> new double[n];
        };
    }

    private static void fill(Object array) {
        int n = java.lang.reflect.Array.getLength(array);
        for (int i = 0; i < n; i++) {
            Object v = switch (array.getClass().getComponentType().getName()) {
                case "byte" -> (byte) (i + 1);
                case "boolean" -> i % 2 == 0;
                case "char" -> (char) ('a' + i);
                case "short" -> (short) (300 + i);
                case "int" -> 70000 + i;
                case "long" -> (1L << 40) + i;
                case "float" -> 1.5f + i;
                default -> 2.25 + i;
            };
            java.lang.reflect.Array.set(array, i, v);
        }
    }

    private static int bytesPerEntry(Object array) {
        return switch (array.getClass().getComponentType().getName()) {
            case "byte", "boolean" -> 1;
            case "char", "short" -> 2;
            case "int", "float" -> 4;
            default -> 8;
        };
    }

    private static Object[] boxed(Object array) {
        Object[] out = new Object[java.lang.reflect.Array.getLength(array)];
        for (int i = 0; i < out.length; i++) {
            out[i] = java.lang.reflect.Array.get(array, i);
        }
        return out;
    }

    private static void require(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
