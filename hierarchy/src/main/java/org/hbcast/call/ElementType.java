package org.hbcast.call;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import org.hbcast.mpi.port.BasicType;

/**
 * The MPI datatypes hbcast broadcasts, with what each element occupies and which Java containers
 * may hold it (the same pairs Open MPI's Java bindings accept); each is one of the port's basic
 * types ({@link #basicType()}), and messages name it as a program does ({@link #mpiName()}).
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

    /** The port's basic type of this type: {@link BasicType#DOUBLE} for DOUBLE and so on. */
    public BasicType basicType() {
        return switch (this) {
            case BYTE -> BasicType.BYTE;
            case BOOLEAN -> BasicType.BOOLEAN;
            case CHAR -> BasicType.CHAR;
            case SHORT -> BasicType.SHORT;
            case INT -> BasicType.INT;
            case LONG -> BasicType.LONG;
            case FLOAT -> BasicType.FLOAT;
            case DOUBLE -> BasicType.DOUBLE;
            case FLOAT_COMPLEX -> BasicType.FLOAT_COMPLEX;
            case DOUBLE_COMPLEX -> BasicType.DOUBLE_COMPLEX;
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
     * The element type of a basic type, or null for null (a datatype hbcast does not broadcast: the
     * call refuses it). No allocation: the public API maps every call's datatype.
     */
    public static ElementType of(BasicType type) {
        if (type == null) {
            return null;
        }
        return switch (type) {
            case BYTE -> BYTE;
            case BOOLEAN -> BOOLEAN;
            case CHAR -> CHAR;
            case SHORT -> SHORT;
            case INT -> INT;
            case LONG -> LONG;
            case FLOAT -> FLOAT;
            case DOUBLE -> DOUBLE;
            case FLOAT_COMPLEX -> FLOAT_COMPLEX;
            case DOUBLE_COMPLEX -> DOUBLE_COMPLEX;
        };
    }
}
