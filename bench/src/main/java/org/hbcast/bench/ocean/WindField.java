package org.hbcast.bench.ocean;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;

/**
 * The full-domain wind-stress field the I/O rank broadcasts: one direct buffer of
 * {@code 2 * nx * ny} doubles in native order, {@code taux} then {@code tauy}, each row-major
 * {@code [ny][nx]}. {@code taux(i, j)} acts on the u face west of cell (i, j), {@code tauy(i, j)} on
 * the v face south of it. Every rank reads only its strip's rows.
 */
public final class WindField {
    /** Largest field the broadcast can carry (it addresses bytes with an int, less a margin). */
    public static final long MAX_BYTES = Integer.MAX_VALUE - 4096L;

    private final int nx;
    private final int ny;
    private final ByteBuffer bytes;
    private final DoubleBuffer values;

    public WindField(int nx, int ny) {
        long b = bytes(nx, ny);
        if (b > MAX_BYTES) {
            throw new IllegalArgumentException("a " + nx + " x " + ny + " wind field is " + b
                    + " bytes, more than one broadcast can carry (" + MAX_BYTES + ")");
        }
        this.nx = nx;
        this.ny = ny;
        this.bytes = ByteBuffer.allocateDirect((int) b).order(ByteOrder.nativeOrder());
        this.values = bytes.asDoubleBuffer();
    }

    /** Bytes of the field of an nx x ny grid. */
    public static long bytes(int nx, int ny) {
        return 2L * nx * ny * Double.BYTES;
    }

    /** The buffer to broadcast ({@link #count()} doubles). */
    public ByteBuffer buffer() {
        return bytes;
    }

    /** Doubles in the field. */
    public int count() {
        return 2 * nx * ny;
    }

    public int nx() {
        return nx;
    }

    public int ny() {
        return ny;
    }

    public double taux(int i, int j) {
        return values.get(j * nx + i);
    }

    public double tauy(int i, int j) {
        return values.get((ny + j) * nx + i);
    }

    void setTaux(int i, int j, double value) {
        values.put(j * nx + i, value);
    }

    void setTauy(int i, int j, double value) {
        values.put((ny + j) * nx + i, value);
    }
}
