package org.hbcast.transport.shm;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;

/** Reproducible message contents, so every rank can compute what it must end up with. */
final class Patterns {
    private Patterns() {}

    /** Writes the pattern of {@code seed} into bytes {@code [0, bytes)} of {@code dst}. */
    static void fill(final ByteBuffer dst, final long seed, final int bytes) {
        final ByteBuffer view = dst.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int i = 0;
        for (; i + Long.BYTES <= bytes; i += Long.BYTES) {
            view.putLong(i, mix(seed + i));
        }
        for (; i < bytes; i++) {
            view.put(i, (byte) mix(seed + i));
        }
    }

    /** Sets bytes {@code [from, to)} of {@code dst} to {@code value}. */
    static void fill(final ByteBuffer dst, final int from, final int to, final byte value) {
        new UnsafeBuffer(dst).setMemory(from, to - from, value);
    }

    /**
     * Compares bytes {@code [from, to)} of {@code actual} and {@code expected}; returns null when equal,
     * else a description of the first difference.
     */
    static String firstDifference(final ByteBuffer actual, final ByteBuffer expected, final int from, final int to) {
        final int at = actual.slice(from, to - from).mismatch(expected.slice(from, to - from));
        if (at < 0) {
            return null;
        }
        return "byte " + (from + at) + " is " + actual.get(from + at) + ", expected " + expected.get(from + at);
    }

    /** Returns null when bytes {@code [from, to)} of {@code actual} are all {@code value}, else the first that is not. */
    static String firstDifference(final ByteBuffer actual, final int from, final int to, final byte value) {
        final UnsafeBuffer view = new UnsafeBuffer(actual);
        final long word = (value & 0xFFL) * 0x0101010101010101L;
        int i = from;
        while (i + Long.BYTES <= to && view.getLong(i) == word) {
            i += Long.BYTES;
        }
        for (; i < to; i++) {
            if (actual.get(i) != value) {
                return "byte " + i + " is " + actual.get(i) + ", expected untouched " + value;
            }
        }
        return null;
    }

    private static long mix(final long x) {
        long z = x * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
