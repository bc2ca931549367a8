package org.hbcast.call;

import java.lang.reflect.Array;
import java.nio.Buffer;

/**
 * One call's message, checked: where the bytes live, how many there are and who sends them.
 *
 * <p>Checked before any communication, so a bad argument gives the same clear error on the rank
 * that made it and nothing is sent. Reused from call to call (no allocation on the hot path). A
 * direct buffer is used from its address on, ignoring its position, as Open MPI's bindings do;
 * a heap buffer is rejected, since the bindings' handling of its offset is not a contract to copy.
 */
public final class Message {
    /** Messages are addressed with int offsets by the MPI bindings; beyond this, use native. */
    public static final long MAX_BYTES = Integer.MAX_VALUE - 4096;
    /** The datatypes hbcast broadcasts, for the error that refuses another. */
    static final String SUPPORTED = "MPI.BYTE, MPI.BOOLEAN, MPI.CHAR, MPI.SHORT, MPI.INT, MPI.LONG, MPI.FLOAT,"
            + " MPI.DOUBLE, MPI.FLOAT_COMPLEX or MPI.DOUBLE_COMPLEX";

    private Object buffer;
    private ElementType type;
    private int count;
    private int root;
    private long bytes;

    /**
     * Checks the arguments of {@code bcast} on this rank.
     *
     * @param typeName the datatype's name when {@code type} is null (it is not supported), for the error
     * @throws IllegalArgumentException naming the bad argument
     */
    public Message bind(Object buf, int count, ElementType type, int root, int rank, int size, String typeName) {
        if (type == null) {
            throw new IllegalArgumentException("datatype " + typeName + " is not supported by hbcast: use " + SUPPORTED
                    + " (or algorithm native)");
        }
        if (root < 0 || root >= size) {
            throw new IllegalArgumentException(
                    "root " + root + " is out of range: the communicator has ranks 0.." + (size - 1));
        }
        if (count < 0) {
            throw new IllegalArgumentException("count " + count + " is negative");
        }
        if (buf == null) {
            throw new IllegalArgumentException("buffer is null");
        }
        long capacity;
        if (buf instanceof Buffer b) {
            if (!b.isDirect()) {
                throw new IllegalArgumentException(
                        "buffer is a heap (non-direct) " + buf.getClass().getSimpleName()
                                + ": pass a direct buffer (ByteBuffer.allocateDirect) or a Java array");
            }
            if (!(buf instanceof java.nio.ByteBuffer) && !type.bufferClass().isInstance(buf)) {
                throw new IllegalArgumentException("buffer is a "
                        + buf.getClass().getSimpleName() + " but datatype " + type.mpiName()
                        + " needs a ByteBuffer or a " + type.bufferClass().getSimpleName());
            }
            if (b.isReadOnly() && rank != root) {
                throw new IllegalArgumentException("buffer is read-only but rank " + rank + " receives into it");
            }
            capacity = (long) b.capacity() * type.entryBytes(buf);
        } else if (buf.getClass().isArray()) {
            if (buf.getClass() != type.arrayClass()) {
                throw new IllegalArgumentException(
                        "buffer is a " + buf.getClass().getSimpleName() + " but datatype " + type.mpiName()
                                + " needs a " + type.arrayClass().getSimpleName());
            }
            capacity = (long) Array.getLength(buf) * type.entryBytes(buf);
        } else {
            throw new IllegalArgumentException("buffer is a " + buf.getClass().getName()
                    + ": pass a Java primitive array or a direct java.nio buffer");
        }
        long need = (long) count * type.bytes();
        if (need > MAX_BYTES) {
            throw new IllegalArgumentException("count " + count + " of " + type.mpiName() + " is " + need
                    + " bytes, above hbcast's limit of " + MAX_BYTES + " per call (use algorithm native)");
        }
        if (need > capacity) {
            throw new IllegalArgumentException("count " + count + " of " + type.mpiName() + " needs " + need
                    + " bytes but the buffer holds " + capacity);
        }
        this.buffer = buf;
        this.type = type;
        this.count = count;
        this.root = root;
        this.bytes = need;
        return this;
    }

    /**
     * Moves the root's {@code rootBytes} in this call (at most what this rank passed, a whole number
     * of its elements: see {@link CallAgreement}); a receiver's buffer beyond them stays untouched.
     */
    public void adopt(long rootBytes) {
        if (rootBytes > bytes || rootBytes % type.bytes() != 0) {
            throw new IllegalStateException(
                    "cannot take " + rootBytes + " bytes into a call of " + bytes + " bytes of " + type.mpiName());
        }
        this.bytes = rootBytes;
        this.count = (int) (rootBytes / type.bytes());
    }

    public Object buffer() {
        return buffer;
    }

    public ElementType type() {
        return type;
    }

    public int count() {
        return count;
    }

    public int root() {
        return root;
    }

    public long bytes() {
        return bytes;
    }

    public boolean isArray() {
        return !(buffer instanceof Buffer);
    }

    /** Bytes per entry of the container, the unit in which slices of it are made. */
    public int entryBytes() {
        return type.entryBytes(buffer);
    }

    /** Copies this message's bytes to memory at {@code address} (the root's side of a header's payload). */
    public void copyTo(long address) {
        if (isArray()) {
            HostCopy.arrayToMemory(buffer, address, bytes);
        } else {
            HostCopy.memoryToMemory(HostCopy.address((Buffer) buffer), address, bytes);
        }
    }

    /** Fills this message's bytes from memory at {@code address} (a receiver's side of a header's payload). */
    public void copyFrom(long address) {
        if (isArray()) {
            HostCopy.memoryToArray(address, buffer, bytes);
        } else {
            HostCopy.memoryToMemory(address, HostCopy.address((Buffer) buffer), bytes);
        }
    }

    /** Drops the reference to the caller's buffer once the call is over. */
    public void clear() {
        buffer = null;
    }
}
