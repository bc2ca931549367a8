package org.hbcast.support;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.BufferUtil;
import org.agrona.UnsafeAccess;
import org.hbcast.call.ElementType;
import sun.misc.Unsafe;

/**
 * Test messages: a container (array, direct ByteBuffer or typed view of one) of a datatype with a
 * guard zone past {@code count}, filled with a pattern that depends on the call, and checked byte
 * by byte so that any corruption or any write past {@code count} is found.
 */
public final class Payload {
    /** How the message is held. */
    public enum Kind {
        ARRAY,
        BUFFER,
        TYPED
    }

    public static final int GUARD_ELEMENTS = 9;
    private static final Unsafe U = UnsafeAccess.UNSAFE;
    private static final byte SENTINEL = (byte) 0xA5;

    public final Object container;
    public final ElementType type;
    public final Kind kind;
    public final int capacity;
    private final Object base;
    private final long offset;
    private final long capacityBytes;

    public Payload(Kind kind, ElementType type, int count) {
        this.kind = kind;
        this.type = type;
        this.capacity = count + GUARD_ELEMENTS;
        this.capacityBytes = (long) capacity * type.bytes();
        if (kind == Kind.ARRAY) {
            int entries = capacity * type.slotsPerElement();
            container = java.lang.reflect.Array.newInstance(type.arrayClass().getComponentType(), entries);
            base = container;
            offset = U.arrayBaseOffset(type.arrayClass());
        } else {
            ByteBuffer bb = ByteBuffer.allocateDirect((int) capacityBytes).order(ByteOrder.nativeOrder());
            container = kind == Kind.BUFFER ? bb : type.viewOf(bb);
            base = null;
            offset = U.getLong(container, BufferUtil.BYTE_BUFFER_ADDRESS_FIELD_OFFSET);
        }
    }

    public static byte expected(long i, long seed, ElementType type) {
        long x = (i + 1) * 0x9E3779B97F4A7C15L + seed * 0xBF58476D1CE4E5B9L;
        x ^= x >>> 29;
        return type == ElementType.BOOLEAN ? (byte) (x & 1) : (byte) x;
    }

    /** The root's message: the pattern up to {@code count}, sentinels after. */
    public void fillPattern(int count, long seed) {
        long bytes = (long) count * type.bytes();
        for (long i = 0; i < capacityBytes; i++) {
            U.putByte(base, offset + i, i < bytes ? expected(i, seed, type) : SENTINEL);
        }
    }

    /** A receiver's buffer before the call: stale data everywhere. */
    public void fillStale() {
        for (long i = 0; i < capacityBytes; i++) {
            U.putByte(base, offset + i, type == ElementType.BOOLEAN ? 0 : SENTINEL);
        }
    }

    /** Null when the first {@code count} elements hold the pattern and the guard zone is untouched. */
    public String verify(int count, long seed, boolean wasRoot) {
        long bytes = (long) count * type.bytes();
        for (long i = 0; i < capacityBytes; i++) {
            byte want = i < bytes ? expected(i, seed, type) : (type == ElementType.BOOLEAN && !wasRoot ? 0 : SENTINEL);
            byte got = U.getByte(base, offset + i);
            if (got != want) {
                return (i < bytes ? "wrong data" : "write past count") + " at byte " + i + " of " + bytes + " (" + kind
                        + " of " + type + "): got " + got + ", want " + want;
            }
        }
        return null;
    }
}
