package org.hbcast.bench.ocean;

import java.util.Arrays;

/**
 * The state of one strip of the basin: grid rows {@code firstRow .. firstRow + rows - 1} of the
 * elevation and both velocities, each with one halo row on either side.
 *
 * <p>Layout of every field: row-major {@code double[(rows + 2) * width(field)]}; local row 0 is the
 * halo below (global row {@code firstRow - 1}), local rows 1..rows are owned, local row
 * {@code rows + 1} is the halo above. Halo rows at the basin's walls are never written and stay
 * zero: v there is the wall's (zero) normal velocity; eta and u there are never read.
 * The velocities are double-buffered (the momentum step reads the old field whole while it writes the
 * new one).
 */
public final class Strip {
    final int nx;
    final int ny;
    final int firstRow;
    final int rows;
    double[] eta;
    double[] u;
    double[] v;
    double[] uNext;
    double[] vNext;

    public Strip(int nx, int ny, int firstRow, int rows) {
        if (nx < 2 || ny < 2 || rows < 1 || firstRow < 0 || firstRow + rows > ny) {
            throw new IllegalArgumentException("rows " + firstRow + ".." + (firstRow + rows - 1)
                    + " are not a strip of a " + nx + " x " + ny + " grid");
        }
        this.nx = nx;
        this.ny = ny;
        this.firstRow = firstRow;
        this.rows = rows;
        this.eta = new double[(rows + 2) * nx];
        this.u = new double[(rows + 2) * (nx + 1)];
        this.v = new double[(rows + 2) * nx];
        this.uNext = new double[u.length];
        this.vNext = new double[v.length];
    }

    public int nx() {
        return nx;
    }

    public int ny() {
        return ny;
    }

    public int firstRow() {
        return firstRow;
    }

    public int rows() {
        return rows;
    }

    /** Values per row of {@code field}. */
    public int width(Field field) {
        return field == Field.U ? nx + 1 : nx;
    }

    /** The live array of {@code field} (layout in the class comment). */
    public double[] array(Field field) {
        return switch (field) {
            case ETA -> eta;
            case U -> u;
            case V -> v;
        };
    }

    /** Offset in {@link #array} of the start of local row {@code localRow} (0 = halo below). */
    public int rowOffset(Field field, int localRow) {
        return localRow * width(field);
    }

    /** The value of {@code field} at column {@code i} of global row {@code j} (owned or halo). */
    public double get(Field field, int i, int j) {
        return array(field)[rowOffset(field, j - firstRow + 1) + i];
    }

    /** Back to rest: every value, halos included, zero. */
    public void reset() {
        for (double[] a : new double[][] {eta, u, v, uNext, vNext}) {
            Arrays.fill(a, 0);
        }
    }

    /** Sets the owned elevation from a function of the global cell (i, j). */
    public void setElevation(CellFunction f) {
        for (int r = 1; r <= rows; r++) {
            for (int i = 0; i < nx; i++) {
                eta[r * nx + i] = f.value(i, firstRow + r - 1);
            }
        }
    }

    void swapU() {
        double[] t = u;
        u = uNext;
        uNext = t;
    }

    void swapV() {
        double[] t = v;
        v = vNext;
        vNext = t;
    }

    /** A value per global cell. */
    @FunctionalInterface
    public interface CellFunction {
        double value(int i, int j);
    }
}
