package org.hbcast.bench.ocean;

/**
 * How the {@code ny} rows of the grid are cut into horizontal strips, one per rank, strip 0 at the
 * south wall: the first {@code ny % strips} strips get one row more than the others.
 */
public record StripLayout(int nx, int ny, int strips) {

    public StripLayout {
        if (nx < 2 || ny < 2) {
            throw new IllegalArgumentException("the grid must be at least 2 x 2 cells, not " + nx + " x " + ny);
        }
        if (strips < 1) {
            throw new IllegalArgumentException("there must be at least one strip, not " + strips);
        }
        if (ny < strips) {
            throw new IllegalArgumentException("the grid has " + ny + " rows (--ny) but " + strips
                    + " ranks each need a strip of at least one row: use --ny >= " + strips + " or fewer ranks");
        }
    }

    /** The first row of strip {@code s}. */
    public int firstRow(int s) {
        check(s);
        int base = ny / strips;
        int extra = ny % strips;
        return s * base + Math.min(s, extra);
    }

    /** The number of rows of strip {@code s}. */
    public int rows(int s) {
        check(s);
        return ny / strips + (s < ny % strips ? 1 : 0);
    }

    /** A fresh strip {@code s} of this layout, at rest. */
    public Strip strip(int s) {
        return new Strip(nx, ny, firstRow(s), rows(s));
    }

    private void check(int s) {
        if (s < 0 || s >= strips) {
            throw new IndexOutOfBoundsException("strip " + s + " of " + strips);
        }
    }
}
