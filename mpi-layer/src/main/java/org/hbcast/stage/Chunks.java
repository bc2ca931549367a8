package org.hbcast.stage;

/**
 * How a call's message is cut: {@code bytes} in chunks of {@code chunkBytes} from offset 0, the
 * last one shorter. The one unit of every stage (tree messages, ring and fan-out slots, staging
 * copies), so that what one stage reports ready is what the next may pass on. Pure.
 */
public final class Chunks {
    private Chunks() {}

    /**
     * Chunks of a message; 0 for an empty one.
     *
     * @throws IllegalArgumentException for a chunk below 1 byte, negative bytes, or more than
     *         {@link Integer#MAX_VALUE} chunks
     */
    public static int count(long bytes, int chunkBytes) {
        if (chunkBytes < 1 || bytes < 0) {
            throw new IllegalArgumentException("cannot cut " + bytes + " bytes in chunks of " + chunkBytes);
        }
        long chunks = (bytes + chunkBytes - 1) / chunkBytes;
        if (chunks > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(
                    bytes + " bytes in chunks of " + chunkBytes + " is more than " + Integer.MAX_VALUE + " chunks");
        }
        return (int) chunks;
    }

    /** Offset of chunk {@code chunk}. */
    public static long offset(int chunk, int chunkBytes) {
        return (long) chunk * chunkBytes;
    }

    /** Bytes of chunk {@code chunk} of a message of {@code bytes}. */
    public static int length(int chunk, int chunkBytes, long bytes) {
        return (int) Math.min(chunkBytes, bytes - (long) chunk * chunkBytes);
    }

    /**
     * What a fed stage ({@link Stage#feed}) may pass on from now on: {@code chunks}, which must grow
     * from the {@code available} so far and stay within the message's {@code chunkCount}.
     *
     * @throws IllegalArgumentException for a count that shrinks or passes the message's end
     */
    public static int fed(int available, int chunks, int chunkCount) {
        if (chunks < available || chunks > chunkCount) {
            throw new IllegalArgumentException(
                    "chunks available must grow within [" + available + ", " + chunkCount + "]: " + chunks);
        }
        return chunks;
    }
}
