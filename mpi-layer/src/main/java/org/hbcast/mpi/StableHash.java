package org.hbcast.mpi;

import java.nio.charset.StandardCharsets;

/**
 * A 64-bit hash of a name that every JVM computes alike (unlike {@code String.hashCode}'s 32 bits),
 * cheap in a cold JVM (unlike {@code MessageDigest}, whose providers start on first use): for names
 * that ranks compare or that name files.
 */
public final class StableHash {
    private StableHash() {}

    /** FNV-1a over {@code name}'s UTF-8 bytes. */
    public static long fnv1a64(String name) {
        long h = 0xcbf29ce484222325L;
        for (byte b : name.getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }
}
