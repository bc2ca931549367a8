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
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

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

    /** Byte {@code i} of the pattern of call {@code seed}: byte {@code i % 8} of {@link #word}, low byte first. */
    public static byte expected(long i, long seed, ElementType type) {
        return (byte) (word(i >>> 3, seed, type) >>> ((i & 7) * 8));
    }

    /**
     * Word {@code w} of the pattern (bytes {@code 8w} to {@code 8w + 7}, low byte first): a mix of its
     * index and the call's seed, so a chunk placed at the wrong offset or from another call shows; a
     * word at a time because the byte-by-byte pattern of C1-compiled test ranks was most of the
     * suite's CPU. Booleans hold 0 or 1 in every byte.
     */
    static long word(long w, long seed, ElementType type) {
        long x = (w + 1) * 0x9E3779B97F4A7C15L + seed * 0xBF58476D1CE4E5B9L;
        x ^= x >>> 29;
        x *= 0x94D049BB133111EBL;
        x ^= x >>> 32;
        return type == ElementType.BOOLEAN ? x & 0x0101010101010101L : x;
    }

    /** The root's message: the pattern up to {@code count}, sentinels after. */
    public void fillPattern(int count, long seed) {
        long bytes = (long) count * type.bytes();
        long words = bytes >>> 3;
        for (long w = 0; w < words; w++) {
            U.putLong(base, offset + (w << 3), nativeOrder(word(w, seed, type)));
        }
        for (long i = words << 3; i < bytes; i++) {
            U.putByte(base, offset + i, expected(i, seed, type));
        }
        U.setMemory(base, offset + bytes, capacityBytes - bytes, SENTINEL);
    }

    /** A receiver's buffer before the call: stale data everywhere. */
    public void fillStale() {
        U.setMemory(base, offset, capacityBytes, type == ElementType.BOOLEAN ? 0 : SENTINEL);
    }

    /** Null when the first {@code count} elements hold the pattern and the guard zone is untouched. */
    public String verify(int count, long seed, boolean wasRoot) {
        long bytes = (long) count * type.bytes();
        long words = bytes >>> 3;
        long from = 0;
        while (from < words && U.getLong(base, offset + (from << 3)) == nativeOrder(word(from, seed, type))) {
            from++;
        }
        // From the first word that differs (or the tail), byte by byte, so the message names the byte.
        for (long i = from << 3; i < capacityBytes; i++) {
            byte want = i < bytes ? expected(i, seed, type) : (type == ElementType.BOOLEAN && !wasRoot ? 0 : SENTINEL);
            byte got = U.getByte(base, offset + i);
            if (got != want) {
                return (i < bytes ? "wrong data" : "write past count") + " at byte " + i + " of " + bytes + " (" + kind
                        + " of " + type + "): got " + got + ", want " + want;
            }
        }
        return null;
    }

    /** Byte {@code i} of the container, guard zone included (for tests of the pattern). */
    byte getByte(long i) {
        return U.getByte(base, offset + i);
    }

    void putByte(long i, byte b) {
        U.putByte(base, offset + i, b);
    }

    private static long nativeOrder(long littleEndian) {
        return LITTLE_ENDIAN ? littleEndian : Long.reverseBytes(littleEndian);
    }
}
