package org.hbcast.call;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import org.agrona.BufferUtil;
import org.agrona.UnsafeAccess;

/**
 * Raw copies between Java arrays and direct memory, and the address of a direct buffer: what it
 * takes to run the transports on one reusable direct copy of array messages.
 */
public final class HostCopy {
    private HostCopy() {}

    /** Base address of a direct buffer's memory (its index 0, whatever its position). */
    public static long address(Buffer direct) {
        return UnsafeAccess.UNSAFE.getLong(direct, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
    }

    public static void arrayToMemory(Object array, long address, long bytes) {
        UnsafeAccess.UNSAFE.copyMemory(
                array, UnsafeAccess.UNSAFE.arrayBaseOffset(array.getClass()), null, address, bytes);
    }

    public static void memoryToArray(long address, Object array, long bytes) {
        UnsafeAccess.UNSAFE.copyMemory(
                null, address, array, UnsafeAccess.UNSAFE.arrayBaseOffset(array.getClass()), bytes);
    }

    public static void memoryToMemory(long from, long to, long bytes) {
        UnsafeAccess.UNSAFE.copyMemory(from, to, bytes);
    }

    /** A direct buffer of at least {@code bytes}, {@code current} when it is large enough. */
    public static ByteBuffer atLeast(ByteBuffer current, long bytes) {
        if (current != null && current.capacity() >= bytes) {
            return current;
        }
        long rounded = Math.max(4096, Long.highestOneBit(Math.max(bytes - 1, 1)) << 1);
        return ByteBuffer.allocateDirect((int) Math.min(rounded, Message.MAX_BYTES));
    }
}
