package org.hbcast.mpi.openmpi;

import java.nio.Buffer;
import java.nio.LongBuffer;
import java.util.Objects;
import mpi.Comm;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Op;
import mpi.Status;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiLibrary;
import org.hbcast.mpi.port.MpiPersistentRequest;
import org.hbcast.mpi.port.MpiRequest;
import org.hbcast.mpi.port.ProbedMessage;
import org.hbcast.mpi.port.ReduceOp;

/**
 * The port's communicator over the bindings' {@link Intracomm}. Each operation is the bindings' own,
 * point to point as {@code MPI.BYTE}; a binding's {@link MPIException} comes out as an
 * {@link MpiFailure} of its error class. Nothing allocated beyond what the bindings allocate: immediate
 * requests go into the caller's slots ({@link OpenMpiRequest}), exceptions are made only on failure.
 * Calls made only while setting up convert through {@link OpenMpiErrors#get}; the rest, which a
 * broadcast may make, convert in their own {@code catch} so that no lambda is made per call.
 */
final class OpenMpiComm implements MpiComm {
    private final Intracomm comm;

    OpenMpiComm(Intracomm comm) {
        this.comm = Objects.requireNonNull(comm, "comm");
    }

    @Override
    public MpiLibrary library() {
        return OpenMpiLibrary.INSTANCE;
    }

    @Override
    public int rank() throws MpiFailure {
        try {
            return comm.getRank();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public int size() throws MpiFailure {
        try {
            return comm.getSize();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public MpiComm dup() throws MpiFailure {
        return OpenMpiErrors.get(() -> new OpenMpiComm(comm.dup()));
    }

    @Override
    public MpiComm split(int color, int key) throws MpiFailure {
        try {
            Intracomm part = comm.split(color == UNDEFINED ? MPI.UNDEFINED : color, key);
            return color == UNDEFINED ? null : new OpenMpiComm(part);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public MpiComm splitByNode(int key) throws MpiFailure {
        return OpenMpiErrors.get(() -> new OpenMpiComm(comm.splitType(Comm.TYPE_SHARED, key, MPI.INFO_NULL)));
    }

    @Override
    public void free() throws MpiFailure {
        OpenMpiErrors.run(() -> comm.free());
    }

    @Override
    public void returnErrors() throws MpiFailure {
        OpenMpiErrors.run(() -> comm.setErrhandler(MPI.ERRORS_RETURN));
    }

    @Override
    public int[] worldRanks(int[] ranks) throws MpiFailure {
        try {
            Group mine = comm.getGroup();
            try {
                Group all = MPI.COMM_WORLD.getGroup();
                try {
                    int[] world = Group.translateRanks(mine, ranks, all);
                    for (int i = 0; i < world.length; i++) {
                        world[i] = world[i] == MPI.UNDEFINED ? UNDEFINED : world[i];
                    }
                    return world;
                } finally {
                    all.free();
                }
            } finally {
                mine.free();
            }
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void bcast(Object buf, int count, BasicType type, int root) throws MpiFailure {
        try {
            comm.bcast(buf, count, OpenMpiTypes.datatype(type), root);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void iBcast(Buffer buf, int bytes, int root, MpiRequest into) throws MpiFailure {
        try {
            slot(into).request = comm.iBcast(buf, bytes, MPI.BYTE, root);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void allReduce(int[] buf, int count, ReduceOp op) throws MpiFailure {
        try {
            comm.allReduce(buf, count, MPI.INT, op(op));
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void allGather(byte[] mine, int count, byte[] all) throws MpiFailure {
        OpenMpiErrors.run(() -> comm.allGather(mine, count, MPI.BYTE, all, count, MPI.BYTE));
    }

    @Override
    public void allGather(int[] mine, int count, int[] all) throws MpiFailure {
        OpenMpiErrors.run(() -> comm.allGather(mine, count, MPI.INT, all, count, MPI.INT));
    }

    @Override
    public void allGather(long[] mine, int count, long[] all) throws MpiFailure {
        OpenMpiErrors.run(() -> comm.allGather(mine, count, MPI.LONG, all, count, MPI.LONG));
    }

    @Override
    public void iAllReduce(LongBuffer buf, int count, ReduceOp op, MpiRequest into) throws MpiFailure {
        try {
            slot(into).request = comm.iAllReduce(buf, count, MPI.LONG, op(op));
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void iReduce(LongBuffer send, LongBuffer receive, int count, ReduceOp op, int root, MpiRequest into)
            throws MpiFailure {
        try {
            slot(into).request = comm.iReduce(send, receive, count, MPI.LONG, op(op), root);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void iBarrier(MpiRequest into) throws MpiFailure {
        try {
            slot(into).request = comm.iBarrier();
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public MpiRequest newRequest() {
        return new OpenMpiRequest();
    }

    @Override
    public void send(Buffer buf, int bytes, int dest, int tag) throws MpiFailure {
        try {
            comm.send(buf, bytes, MPI.BYTE, dest, tag);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void recv(Buffer buf, int bytes, int source, int tag) throws MpiFailure {
        try {
            comm.recv(buf, bytes, MPI.BYTE, source(source), tag);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void sendRecv(
            Buffer send,
            int sendBytes,
            int dest,
            int sendTag,
            Buffer receive,
            int receiveBytes,
            int source,
            int receiveTag)
            throws MpiFailure {
        try {
            comm.sendRecv(
                    send,
                    sendBytes,
                    MPI.BYTE,
                    dest,
                    sendTag,
                    receive,
                    receiveBytes,
                    MPI.BYTE,
                    source(source),
                    receiveTag);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void iSend(Buffer buf, int bytes, int dest, int tag, MpiRequest into) throws MpiFailure {
        try {
            slot(into).request = comm.iSend(buf, bytes, MPI.BYTE, dest, tag);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void iSendSynchronous(Buffer buf, int bytes, int dest, int tag, MpiRequest into) throws MpiFailure {
        try {
            slot(into).request = comm.isSend(buf, bytes, MPI.BYTE, dest, tag);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public void iRecv(Buffer buf, int bytes, int source, int tag, MpiRequest into) throws MpiFailure {
        try {
            slot(into).request = comm.iRecv(buf, bytes, MPI.BYTE, source(source), tag);
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    @Override
    public MpiPersistentRequest sendInit(Buffer buf, int bytes, int dest, int tag) throws MpiFailure {
        return OpenMpiErrors.get(() -> new OpenMpiPersistentRequest(comm.sendInit(buf, bytes, MPI.BYTE, dest, tag)));
    }

    @Override
    public MpiPersistentRequest recvInit(Buffer buf, int bytes, int source, int tag) throws MpiFailure {
        return OpenMpiErrors.get(
                () -> new OpenMpiPersistentRequest(comm.recvInit(buf, bytes, MPI.BYTE, source(source), tag)));
    }

    @Override
    public boolean iProbe(int source, int tag, ProbedMessage into) throws MpiFailure {
        try {
            // The bindings make a Status only where a message waits.
            Status status = comm.iProbe(source(source), tag);
            if (status == null) {
                return false;
            }
            into.set(status.getSource(), status.getCount(MPI.BYTE));
            return true;
        } catch (MPIException e) {
            throw OpenMpiErrors.failure(e);
        }
    }

    /** The slot of this binding that an immediate operation fills (one of another binding is a caller's bug). */
    private static OpenMpiRequest slot(MpiRequest into) {
        return (OpenMpiRequest) into;
    }

    private static int source(int source) {
        return source == ANY_SOURCE ? MPI.ANY_SOURCE : source;
    }

    private static Op op(ReduceOp op) {
        return switch (op) {
            case MAX -> MPI.MAX;
            case MIN -> MPI.MIN;
        };
    }

    @Override
    public String toString() {
        return "Open MPI communicator " + comm;
    }
}
