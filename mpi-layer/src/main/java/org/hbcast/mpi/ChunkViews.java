package org.hbcast.mpi;

import java.nio.Buffer;
import java.util.Arrays;
import org.hbcast.stage.Chunks;

/**
 * Slices of one direct buffer, one per chunk, made once and reused while the same buffer and
 * chunk size come back (the common case of a model broadcasting the same array every step).
 *
 * <p>Open MPI's Java bindings send from a direct buffer's base address and ignore its position, so
 * each chunk needs a buffer whose address is the chunk's start: a slice. Position and limit of
 * the caller's buffer are ignored here too.
 */
public final class ChunkViews {
    private Buffer base;
    /** {@code base} from 0 to its capacity: slices are checked against the limit, which callers may have set anywhere. */
    private Buffer whole;

    private int elementBytes;
    private int chunkBytes;
    private long totalBytes = -1;
    private Buffer[] views = new Buffer[0];

    /**
     * Points the views at {@code base}; keeps the cached slices when nothing changed.
     *
     * @return true when the slices are those of the previous reset (the same buffer object, cut
     *         alike), so that what was bound to them (persistent requests) still holds
     */
    public boolean reset(Buffer base, int elementBytes, long totalBytes, int chunkBytes) {
        if (chunkBytes % elementBytes != 0) {
            throw new IllegalArgumentException(
                    "chunk of " + chunkBytes + " bytes is not a whole number of " + elementBytes + "-byte elements");
        }
        if (base == this.base
                && elementBytes == this.elementBytes
                && chunkBytes == this.chunkBytes
                && totalBytes == this.totalBytes) {
            return true;
        }
        this.base = base;
        this.whole = base.duplicate().clear();
        this.elementBytes = elementBytes;
        this.chunkBytes = chunkBytes;
        this.totalBytes = totalBytes;
        int count = Chunks.count(totalBytes, chunkBytes);
        if (views.length < count) {
            views = new Buffer[count];
        } else {
            Arrays.fill(views, null);
        }
        return false;
    }

    /** The slice of chunk {@code s}, made on first use. */
    public Buffer view(int s) {
        Buffer v = views[s];
        if (v == null) {
            long offset = Chunks.offset(s, chunkBytes);
            int length = chunkLength(s);
            v = whole.slice((int) (offset / elementBytes), length / elementBytes);
            views[s] = v;
        }
        return v;
    }

    /** Bytes in chunk {@code s} (the last one may be short). */
    public int chunkLength(int s) {
        return Chunks.length(s, chunkBytes, totalBytes);
    }
}
