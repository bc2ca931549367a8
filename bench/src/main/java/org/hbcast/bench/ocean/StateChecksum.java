package org.hbcast.bench.ocean;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hasher;
import com.google.common.hash.Hashing;
import com.google.common.primitives.Longs;

/**
 * A fingerprint of the model state that does not depend on how the grid was cut into strips: each
 * grid row gets the 64-bit FarmHash fingerprint of the raw bits of its eta, u and v values; the
 * checksum is the fingerprint of all row fingerprints in row order (gathered in rank order, since
 * strips are in rank order). Equal checksums mean bit-identical states, up to hash collisions.
 */
public final class StateChecksum {
    private static final HashFunction HASH = Hashing.farmHashFingerprint64();

    private StateChecksum() {}

    /** The fingerprints of the owned rows of {@code s}, south to north. */
    public static long[] rowHashes(Strip s) {
        long[] out = new long[s.rows()];
        for (int r = 1; r <= s.rows(); r++) {
            Hasher h = HASH.newHasher();
            for (Field field : Field.values()) {
                double[] a = s.array(field);
                int from = s.rowOffset(field, r);
                for (int i = 0; i < s.width(field); i++) {
                    h.putDouble(a[from + i]);
                }
            }
            out[r - 1] = h.hash().asLong();
        }
        return out;
    }

    /** The checksum of the whole grid from its row fingerprints in row order. */
    public static long combine(long[] rowHashes) {
        Hasher h = HASH.newHasher();
        for (long x : rowHashes) {
            h.putLong(x);
        }
        return h.hash().asLong();
    }

    /** The checksum of strips that together cover the grid, given south to north. */
    public static long of(Iterable<Strip> strips) {
        long[] all = new long[0];
        for (Strip s : strips) {
            all = Longs.concat(all, rowHashes(s));
        }
        return combine(all);
    }

    /** The checksum as 16 hex digits. */
    public static String hex(long checksum) {
        return String.format("%016x", checksum);
    }
}
