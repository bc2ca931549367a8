package org.hbcast.bench.ocean;

import java.util.List;

/**
 * The halo exchange of strips that live in one process: copies each strip's edge rows into its
 * neighbours' halo rows, as {@link MpiHalos} does between ranks.
 */
public final class LocalHalos implements Halos {
    private final List<Strip> strips;

    /** {@code strips} in order from the south wall, each starting where the previous one ends. */
    public LocalHalos(List<Strip> strips) {
        for (int k = 1; k < strips.size(); k++) {
            Strip below = strips.get(k - 1);
            if (strips.get(k).firstRow != below.firstRow + below.rows) {
                throw new IllegalArgumentException("strip " + k + " does not start where strip " + (k - 1) + " ends");
            }
        }
        this.strips = List.copyOf(strips);
    }

    @Override
    public void exchange(Field field) {
        for (int k = 1; k < strips.size(); k++) {
            Strip below = strips.get(k - 1);
            Strip above = strips.get(k);
            int w = below.width(field);
            // Top owned row of the lower strip -> halo below of the upper one, and back.
            System.arraycopy(below.array(field), below.rowOffset(field, below.rows), above.array(field), 0, w);
            System.arraycopy(
                    above.array(field),
                    above.rowOffset(field, 1),
                    below.array(field),
                    below.rowOffset(field, below.rows + 1),
                    w);
        }
    }
}
