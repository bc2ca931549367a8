package org.hbcast.transport.cuda;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.hbcast.device.AllocationId;
import org.hbcast.device.DeviceBuffer;
import org.hbcast.device.IpcHandles;

/**
 * What a rank tells a peer so that the peer can write into its device memory: the allocation's
 * identity and its CUDA IPC handle, as a fixed 96-byte record for the node communicator.
 *
 * <pre>
 * offset  size  field
 * 0       8     pid          owner process
 * 8       8     address      base address in the owner's space
 * 16      8     bytes        allocation size
 * 24      8     generation   owner's allocation counter
 * 32      64    handle       cudaIpcMemHandle bytes
 * </pre>
 *
 * Little-endian.
 *
 * @param id     the allocation
 * @param handle its 64-byte IPC handle
 */
public record IpcDescriptor(AllocationId id, byte[] handle) {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final int BYTES_OFFSET = 16;
    private static final int GENERATION_OFFSET = 24;
    private static final long PID = ProcessHandle.current().pid();

    /** Where the IPC handle starts in an encoded descriptor. */
    public static final int HANDLE_OFFSET = 32;

    /** Size of an encoded descriptor. */
    public static final int BYTES = 32 + IpcHandles.HANDLE_BYTES;

    /** Checks the handle length. */
    public IpcDescriptor {
        if (handle.length != IpcHandles.HANDLE_BYTES) {
            throw new IllegalArgumentException(
                    "an IPC handle has " + IpcHandles.HANDLE_BYTES + " bytes, not " + handle.length);
        }
    }

    /** The allocation size recorded in the descriptor at {@code offset} of {@code record}, read without allocating. */
    public static long bytesAt(final byte[] record, final int offset) {
        return (long) LONGS.get(record, offset + BYTES_OFFSET);
    }

    /**
     * True when the descriptor at {@code offset} of {@code record} describes memory the program
     * allocated ({@link DeviceBuffer#isUserGeneration}): mapped per call, never cached. Read without
     * allocating.
     */
    public static boolean isProgramMemoryAt(final byte[] record, final int offset) {
        return DeviceBuffer.isUserGeneration((long) LONGS.get(record, offset + GENERATION_OFFSET));
    }

    /**
     * Writes the descriptor of {@code buffer} at {@code offset} of {@code target} without allocating
     * (after the buffer's first use, which makes its IPC handle): for every direct-mode broadcast.
     */
    public static void encode(final DeviceBuffer buffer, final byte[] target, final int offset) {
        if (offset < 0 || offset + BYTES > target.length) {
            throw new IllegalArgumentException("no room for a " + BYTES + "-byte descriptor at offset " + offset
                    + " of " + target.length + " bytes");
        }
        final byte[] handle = buffer.ipcHandle();
        LONGS.set(target, offset, PID);
        LONGS.set(target, offset + 8, buffer.address());
        LONGS.set(target, offset + BYTES_OFFSET, buffer.bytes());
        LONGS.set(target, offset + GENERATION_OFFSET, buffer.generation());
        System.arraycopy(handle, 0, target, offset + HANDLE_OFFSET, handle.length);
    }

    /**
     * Writes, in place of a descriptor, the mark of a rank that cannot take part in the call (pid 0,
     * which no process has): its neighbour, which is waiting for the descriptor, fails at once too.
     */
    public static void encodeRefusal(final byte[] target, final int offset) {
        Arrays.fill(target, offset, offset + BYTES, (byte) 0);
    }

    /** True when the record at {@code offset} is a refusal ({@link #encodeRefusal}). */
    public static boolean isRefusal(final byte[] record, final int offset) {
        return (long) LONGS.get(record, offset) == 0;
    }

    /** The descriptor of {@code buffer} (makes its IPC handle if it has none yet). */
    public static IpcDescriptor of(final DeviceBuffer buffer) {
        return new IpcDescriptor(buffer.allocationId(), buffer.ipcHandle());
    }

    /** Writes this descriptor at offset {@code offset} of {@code target}. */
    public void encode(final byte[] target, final int offset) {
        final ByteBuffer out = ByteBuffer.wrap(target, offset, BYTES).order(ByteOrder.LITTLE_ENDIAN);
        out.putLong(id.pid())
                .putLong(id.address())
                .putLong(id.bytes())
                .putLong(id.generation())
                .put(handle);
    }

    /** Reads a descriptor written by {@link #encode}. */
    public static IpcDescriptor decode(final byte[] source, final int offset) {
        if (offset < 0 || offset + BYTES > source.length) {
            throw new IllegalArgumentException("no room for a " + BYTES + "-byte descriptor at offset " + offset
                    + " of " + source.length + " bytes");
        }
        final ByteBuffer in = ByteBuffer.wrap(source, offset, BYTES).order(ByteOrder.LITTLE_ENDIAN);
        final AllocationId id = new AllocationId(in.getLong(), in.getLong(), in.getLong(), in.getLong());
        final byte[] handle = new byte[IpcHandles.HANDLE_BYTES];
        in.get(handle);
        return new IpcDescriptor(id, handle);
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof IpcDescriptor other && id.equals(other.id) && Arrays.equals(handle, other.handle);
    }

    @Override
    public int hashCode() {
        return 31 * id.hashCode() + Arrays.hashCode(handle);
    }

    @Override
    public String toString() {
        return "IpcDescriptor{pid " + id.pid() + ", 0x" + Long.toHexString(id.address()) + ", " + id.bytes()
                + " bytes, generation " + id.generation() + '}';
    }
}
