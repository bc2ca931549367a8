package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import org.junit.jupiter.api.Test;

/** Segment slices cover the buffer from its start to its capacity, whatever its position and limit. */
class ChunkViewsTest {

    @Test
    void slicesIgnoreThePositionAndLimitOfTheCallersBuffer() {
        LongBuffer longs = ByteBuffer.allocateDirect(800).asLongBuffer();
        for (int i = 0; i < longs.capacity(); i++) {
            longs.put(i, i);
        }
        longs.position(7).limit(30); // found by the fuzz: slicing against the limit threw mid-broadcast
        ChunkViews views = new ChunkViews();
        views.reset(longs, 8, 800, 64);
        assertEquals(13, org.hbcast.stage.Chunks.count(800, 64));
        for (int s = 0; s < 13; s++) {
            LongBuffer v = (LongBuffer) views.view(s);
            assertEquals(views.chunkLength(s) / 8, v.capacity(), "segment " + s);
            assertEquals(s * 8L, v.get(0), "segment " + s + " starts at element " + s * 8);
        }
        assertEquals(7, longs.position());
        assertEquals(30, longs.limit());
    }
}
