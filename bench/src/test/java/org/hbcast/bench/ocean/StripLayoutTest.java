package org.hbcast.bench.ocean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Strips cover the rows exactly once, in order, sizes differing by at most one. */
class StripLayoutTest {
    @Test
    void everyRowInExactlyOneStripForManyShapes() {
        for (int ny = 2; ny <= 60; ny++) {
            for (int strips = 1; strips <= ny; strips++) {
                StripLayout l = new StripLayout(4, ny, strips);
                int next = 0;
                for (int s = 0; s < strips; s++) {
                    assertEquals(next, l.firstRow(s), ny + " rows in " + strips);
                    assertTrue(l.rows(s) == ny / strips || l.rows(s) == ny / strips + 1);
                    next += l.rows(s);
                }
                assertEquals(ny, next);
            }
        }
    }

    @Test
    void moreStripsThanRowsIsRefused() {
        String m = assertThrows(IllegalArgumentException.class, () -> new StripLayout(8, 3, 4))
                .getMessage();
        assertTrue(m.contains("3 rows (--ny) but 4 ranks"), m);
    }

    @Test
    void stripOutsideTheLayoutIsRefused() {
        assertThrows(IndexOutOfBoundsException.class, () -> new StripLayout(8, 8, 2).rows(2));
    }
}
