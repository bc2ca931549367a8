package org.hbcast.mpi;

import java.nio.Buffer;
import java.util.Arrays;

/**
 * Slices of one direct buffer, one per segment, made once and reused while the same buffer and
 * segment size come back (the common case of a model broadcasting the same array every step).
 *
 * <p>Open MPI's Java bindings send from a direct buffer's base address and ignore its position, so
 * each segment needs a buffer whose address is the segment's start: a slice. Position and limit of
 * the caller's buffer are ignored here too.
 */
public final class SegmentViews {
    private Buffer base;
    /** {@code base} from 0 to its capacity: slices are checked against the limit, which callers may have set anywhere. */
    private Buffer whole;
    private int elementBytes;
    private int segmentBytes;
    private long totalBytes = -1;
    private Buffer[] views = new Buffer[0];

    /** Points the views at {@code base}; keeps the cached slices when nothing changed. */
    public void reset(Buffer base, int elementBytes, long totalBytes, int segmentBytes) {
        if (segmentBytes % elementBytes != 0) {
            throw new IllegalArgumentException("segment of " + segmentBytes + " bytes is not a whole number of "
                    + elementBytes + "-byte elements");
        }
        if (base == this.base && elementBytes == this.elementBytes && segmentBytes == this.segmentBytes
                && totalBytes == this.totalBytes) {
            return;
        }
        this.base = base;
        this.whole = base.duplicate().clear();
        this.elementBytes = elementBytes;
        this.segmentBytes = segmentBytes;
        this.totalBytes = totalBytes;
        int count = segmentCount(totalBytes, segmentBytes);
        if (views.length < count) {
            views = new Buffer[count];
        } else {
            Arrays.fill(views, null);
        }
    }

    /** The slice of segment {@code s}, made on first use. */
    public Buffer view(int s) {
        Buffer v = views[s];
        if (v == null) {
            long offset = (long) s * segmentBytes;
            int length = segmentLength(s);
            v = whole.slice((int) (offset / elementBytes), length / elementBytes);
            views[s] = v;
        }
        return v;
    }

    /** Bytes in segment {@code s} (the last one may be short). */
    public int segmentLength(int s) {
        return (int) Math.min(segmentBytes, totalBytes - (long) s * segmentBytes);
    }

    public static int segmentCount(long totalBytes, int segmentBytes) {
        return (int) ((totalBytes + segmentBytes - 1) / segmentBytes);
    }
}
