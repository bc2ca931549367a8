package org.hbcast.mpi.port;

/**
 * The basic MPI datatypes hbcast moves, named as Java's primitives: what a program's arrays and
 * buffers hold. In the standard's C types (as a binding over the MPI 5 ABI would map them): BYTE is
 * {@code MPI_BYTE}, BOOLEAN one byte ({@code MPI_C_BOOL}'s size on every ABI hbcast knows), CHAR a
 * UTF-16 unit ({@code MPI_UINT16_T}), SHORT, INT and LONG {@code MPI_INT16_T}, {@code MPI_INT32_T},
 * {@code MPI_INT64_T}, FLOAT and DOUBLE {@code MPI_FLOAT} and {@code MPI_DOUBLE}, and the complex ones
 * {@code MPI_C_FLOAT_COMPLEX} and {@code MPI_C_DOUBLE_COMPLEX}.
 */
public enum BasicType {
    BYTE(1),
    BOOLEAN(1),
    CHAR(2),
    SHORT(2),
    INT(4),
    LONG(8),
    FLOAT(4),
    DOUBLE(8),
    /** A pair of floats. */
    FLOAT_COMPLEX(8),
    /** A pair of doubles. */
    DOUBLE_COMPLEX(16);

    private final int bytes;

    BasicType(int bytes) {
        this.bytes = bytes;
    }

    /** Bytes of one element. */
    public int bytes() {
        return bytes;
    }
}
