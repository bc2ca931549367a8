package org.hbcast.call;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import mpi.Datatype;
import mpi.MPI;

/**
 * The MPI datatypes hbcast broadcasts, with what each element occupies and which Java containers
 * may hold it (the same pairs Open MPI's Java bindings accept).
 */
public enum ElementType {
    BYTE(1, 1, byte[].class, ByteBuffer.class, "MPI.BYTE"),
    BOOLEAN(1, 1, boolean[].class, ByteBuffer.class, "MPI.BOOLEAN"),
    CHAR(2, 1, char[].class, CharBuffer.class, "MPI.CHAR"),
    SHORT(2, 1, short[].class, ShortBuffer.class, "MPI.SHORT"),
    INT(4, 1, int[].class, IntBuffer.class, "MPI.INT"),
    LONG(8, 1, long[].class, LongBuffer.class, "MPI.LONG"),
    FLOAT(4, 1, float[].class, FloatBuffer.class, "MPI.FLOAT"),
    DOUBLE(8, 1, double[].class, DoubleBuffer.class, "MPI.DOUBLE"),
    /** A pair of floats per element. */
    FLOAT_COMPLEX(8, 2, float[].class, FloatBuffer.class, "MPI.FLOAT_COMPLEX"),
    /** A pair of doubles per element. */
    DOUBLE_COMPLEX(16, 2, double[].class, DoubleBuffer.class, "MPI.DOUBLE_COMPLEX");

    private final int bytes;
    private final int slotsPerElement;
    private final Class<?> arrayClass;
    private final Class<? extends Buffer> bufferClass;
    private final String mpiName;

    ElementType(
            int bytes, int slotsPerElement, Class<?> arrayClass, Class<? extends Buffer> bufferClass, String mpiName) {
        this.bytes = bytes;
        this.slotsPerElement = slotsPerElement;
        this.arrayClass = arrayClass;
        this.bufferClass = bufferClass;
        this.mpiName = mpiName;
    }

    /** The constant a program passes for this type, {@code MPI.DOUBLE} for DOUBLE: how messages name it. */
    public String mpiName() {
        return mpiName;
    }

    /** Bytes of one element. */
    public int bytes() {
        return bytes;
    }

    /** Array entries (or typed-buffer entries) one element takes: 2 for complex types. */
    public int slotsPerElement() {
        return slotsPerElement;
    }

    public Class<?> arrayClass() {
        return arrayClass;
    }

    /** The typed buffer that may hold this type; a {@link ByteBuffer} may hold any. */
    public Class<? extends Buffer> bufferClass() {
        return bufferClass;
    }

    /** The MPI datatype of this type: {@code MPI.DOUBLE} for DOUBLE and so on. */
    public Datatype datatype() {
        return switch (this) {
            case BYTE -> MPI.BYTE;
            case BOOLEAN -> MPI.BOOLEAN;
            case CHAR -> MPI.CHAR;
            case SHORT -> MPI.SHORT;
            case INT -> MPI.INT;
            case LONG -> MPI.LONG;
            case FLOAT -> MPI.FLOAT;
            case DOUBLE -> MPI.DOUBLE;
            case FLOAT_COMPLEX -> MPI.FLOAT_COMPLEX;
            case DOUBLE_COMPLEX -> MPI.DOUBLE_COMPLEX;
        };
    }

    /** A view of {@code bytes} as the typed buffer that holds this type (the buffer itself for bytes and booleans). */
    public Buffer viewOf(ByteBuffer bytes) {
        return switch (this) {
            case BYTE, BOOLEAN -> bytes;
            case CHAR -> bytes.asCharBuffer();
            case SHORT -> bytes.asShortBuffer();
            case INT -> bytes.asIntBuffer();
            case LONG -> bytes.asLongBuffer();
            case FLOAT, FLOAT_COMPLEX -> bytes.asFloatBuffer();
            case DOUBLE, DOUBLE_COMPLEX -> bytes.asDoubleBuffer();
        };
    }

    /** Bytes of one entry of a container of this type (a byte for any ByteBuffer). */
    int entryBytes(Object container) {
        return container instanceof ByteBuffer ? 1 : bytes / slotsPerElement;
    }

    /**
     * A readable name of any datatype, for an error message: the {@code MPI.*} constant it is, found
     * by identity ({@code MPI.INT2}, not {@code mpi.Datatype@1a2b3c} nor Open MPI's {@code MPI_2INT};
     * no native call, which on {@code MPI.DATATYPE_NULL} aborts the job), else the name a program
     * set on a derived type, else its size and extent as the bindings give them. Failure path only.
     */
    public static String describe(Datatype type) {
        if (type == null) {
            return "null";
        }
        ElementType element = of(type);
        if (element != null) {
            return element.mpiName;
        }
        String constant = unsupportedConstant(type);
        if (constant != null) {
            return constant;
        }
        try {
            String name = type.getName();
            if (name != null && !name.isBlank()) {
                return name.strip();
            }
            // The bindings count size and extent in units of the type's base type, not bytes.
            return "(a derived datatype of size " + type.getSize() + ", extent " + type.getExtent() + ")";
        } catch (mpi.MPIException | RuntimeException e) {
            return "(a datatype Open MPI cannot describe: " + e.getMessage() + ")";
        }
    }

    /** The {@code MPI.*} datatype constants hbcast does not broadcast, by name; null for any other type. */
    private static String unsupportedConstant(Datatype type) {
        if (type == MPI.DATATYPE_NULL) {
            return "MPI.DATATYPE_NULL";
        } else if (type == MPI.PACKED) {
            return "MPI.PACKED";
        } else if (type == MPI.INT2) {
            return "MPI.INT2";
        } else if (type == MPI.SHORT_INT) {
            return "MPI.SHORT_INT";
        } else if (type == MPI.LONG_INT) {
            return "MPI.LONG_INT";
        } else if (type == MPI.FLOAT_INT) {
            return "MPI.FLOAT_INT";
        } else if (type == MPI.DOUBLE_INT) {
            return "MPI.DOUBLE_INT";
        }
        return null;
    }

    /**
     * The element type of an MPI datatype, or null when hbcast does not broadcast it (derived and
     * pair types go to {@code native}).
     */
    public static ElementType of(Datatype type) {
        if (type == MPI.BYTE) {
            return BYTE;
        } else if (type == MPI.BOOLEAN) {
            return BOOLEAN;
        } else if (type == MPI.CHAR) {
            return CHAR;
        } else if (type == MPI.SHORT) {
            return SHORT;
        } else if (type == MPI.INT) {
            return INT;
        } else if (type == MPI.LONG) {
            return LONG;
        } else if (type == MPI.FLOAT) {
            return FLOAT;
        } else if (type == MPI.DOUBLE) {
            return DOUBLE;
        } else if (type == MPI.FLOAT_COMPLEX) {
            return FLOAT_COMPLEX;
        } else if (type == MPI.DOUBLE_COMPLEX) {
            return DOUBLE_COMPLEX;
        }
        return null;
    }
}
