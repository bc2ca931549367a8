package org.hbcast.bench.soak;

import org.agrona.UnsafeAccess;
import sun.misc.Unsafe;

/**
 * The soak's message contents: bytes that depend on (seed, call, offset), so every receiver can
 * recompute what the root sent and check each byte, and a sentinel guard zone after the message
 * that nobody may write. Memory is addressed as (base object, offset) like {@link Unsafe}: an
 * array and its base offset, or null and a native address.
 */
final class Pattern {
    /** Bytes after the message that must stay untouched (a multiple of every element size). */
    static final int GUARD_BYTES = 64;

    static final byte SENTINEL = (byte) 0xA5;
    private static final long SENTINEL_WORD = 0xA5A5A5A5A5A5A5A5L;
    private static final long BOOLEAN_MASK = 0x0101010101010101L;
    private static final Unsafe U = UnsafeAccess.UNSAFE;

    private Pattern() {}

    /** The key of one call's pattern. */
    static long key(long seed, long call) {
        return mix(seed * 0x9E3779B97F4A7C15L + call);
    }

    /** The 8 pattern bytes at word {@code w} of a call's message (booleans keep only 0 and 1). */
    static long word(long key, long w, boolean booleans) {
        long x = mix(key + w * 0xBF58476D1CE4E5B9L);
        return booleans ? x & BOOLEAN_MASK : x;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** The root's message: the pattern over {@code bytes}, then the guard zone. */
    static void fill(Object base, long offset, long bytes, long key, boolean booleans) {
        long words = bytes >>> 3;
        for (long w = 0; w < words; w++) {
            U.putLong(base, offset + (w << 3), word(key, w, booleans));
        }
        if ((bytes & 7) != 0) {
            long last = word(key, words, booleans);
            for (long i = words << 3; i < bytes; i++) {
                U.putByte(base, offset + i, (byte) (last >>> ((i & 7) << 3)));
            }
        }
        guard(base, offset + bytes);
    }

    /** Writes the guard zone that starts at {@code offset}. */
    static void guard(Object base, long offset) {
        for (int i = 0; i < GUARD_BYTES; i += 8) {
            U.putLong(base, offset + i, SENTINEL_WORD);
        }
    }

    /** Null when the message holds the call's pattern and the guard zone is intact; else the first problem. */
    static String verify(Object base, long offset, long bytes, long key, boolean booleans) {
        long words = bytes >>> 3;
        for (long w = 0; w < words; w++) {
            if (U.getLong(base, offset + (w << 3)) != word(key, w, booleans)) {
                return mismatch(base, offset, w << 3, bytes, key, booleans);
            }
        }
        for (long i = words << 3; i < bytes; i++) {
            if (U.getByte(base, offset + i) != expected(key, i, booleans)) {
                return mismatch(base, offset, i, bytes, key, booleans);
            }
        }
        for (int i = 0; i < GUARD_BYTES; i++) {
            byte got = U.getByte(base, offset + bytes + i);
            if (got != SENTINEL) {
                return "write past the message: guard byte " + i + " after byte " + bytes + " is " + got + ", want "
                        + SENTINEL;
            }
        }
        return null;
    }

    private static byte expected(long key, long i, boolean booleans) {
        return (byte) (word(key, i >>> 3, booleans) >>> ((i & 7) << 3));
    }

    private static String mismatch(Object base, long offset, long from, long bytes, long key, boolean booleans) {
        long i = from;
        while (i < bytes && U.getByte(base, offset + i) == expected(key, i, booleans)) {
            i++;
        }
        long wrong = 0;
        for (long j = i; j < bytes; j++) {
            if (U.getByte(base, offset + j) != expected(key, j, booleans)) {
                wrong++;
            }
        }
        return "wrong data from byte " + i + " of " + bytes + " (" + wrong + " bytes wrong): got "
                + U.getByte(base, offset + i) + ", want " + expected(key, i, booleans);
    }
}
