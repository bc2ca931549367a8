package org.hbcast;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The counts {@link DeviceBcastProgram}'s matrix broadcasts and the buffers they need, kept apart so
 * that a test without a GPU checks them: every count around the chunk and the direct-mode threshold
 * must fit the buffers, and the calls after the IPC handles are counted must only reuse mappings.
 *
 * @param chunk  the chunk both levels pipeline over
 * @param direct the smallest message the CUDA ring moves in direct mode
 */
record DeviceMatrix(int chunk, int direct) {
    /** The large message the matrix adds when asked ({@code large=yes}). */
    static final int LARGE = 32 * (1 << 20) + 5;

    /** Byte counts: empty, tiny, around one chunk, three chunks and a bit, around the direct-mode threshold. */
    int[] byteCounts() {
        return new int[] {0, 1, 7, chunk - 1, chunk, chunk + 1, 3 * chunk + 17, direct - 1, direct + 3};
    }

    /** Counts of doubles: around one chunk and past the direct-mode threshold. */
    int[] doubleCounts() {
        return new int[] {chunk / 8 - 1, chunk / 8 + 1, direct / 8 + 3};
    }

    /** Bytes each buffer must hold for every count of the matrix (without the guard zone). */
    int bufferBytes(boolean large) {
        int most = large ? LARGE : 0;
        for (int c : byteCounts()) {
            most = Math.max(most, c);
        }
        for (int c : doubleCounts()) {
            most = Math.max(most, c * Double.BYTES);
        }
        return most;
    }

    /**
     * The (root, buffer) pairs of the direct-mode calls made before the IPC handles are counted: each
     * root with each of the two buffers. A rank maps its right neighbour's buffer only when it sends,
     * which depends on the root; after these calls every rank has mapped every buffer it will ever
     * send into, whatever the root.
     */
    static List<int[]> mappingPairs(List<Integer> roots) {
        List<int[]> pairs = new ArrayList<>();
        for (int which = 0; which < 2; which++) {
            for (int root : roots) {
                pairs.add(new int[] {root, which});
            }
        }
        return pairs;
    }

    /** The (root, buffer) pairs of the direct-mode calls after the count: each maps its buffer for that call only. */
    static List<int[]> reusePairs(List<Integer> roots, int firstCall) {
        List<int[]> pairs = new ArrayList<>();
        int call = firstCall;
        for (int root : roots) {
            pairs.add(new int[] {root, call++ % 2});
        }
        return pairs;
    }

    /** Whether {@code pair} is among {@code pairs}. */
    static boolean contains(List<int[]> pairs, int[] pair) {
        return pairs.stream().anyMatch(p -> Arrays.equals(p, pair));
    }
}
