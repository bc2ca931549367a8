package org.hbcast.mpi.openmpi;

import mpi.Datatype;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.mpi.port.BasicType;

/**
 * The port's basic types against the bindings' datatype constants, both ways, and a readable name
 * for any datatype a program passes. By identity, with no native call: a call on
 * {@code MPI.DATATYPE_NULL} aborts the job.
 */
final class OpenMpiTypes {
    private OpenMpiTypes() {}

    /** The bindings' constant of {@code type}: {@code MPI.DOUBLE} for DOUBLE and so on. */
    static Datatype datatype(BasicType type) {
        return switch (type) {
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

    /**
     * The basic type of the bindings' datatype {@code type}, or null for any other (derived and pair
     * types, {@code MPI.PACKED}, null). A chain of identity tests: the constants are made when class
     * {@code MPI} loads, not at compile time.
     */
    static BasicType basicType(Datatype type) {
        if (type == MPI.BYTE) {
            return BasicType.BYTE;
        } else if (type == MPI.BOOLEAN) {
            return BasicType.BOOLEAN;
        } else if (type == MPI.CHAR) {
            return BasicType.CHAR;
        } else if (type == MPI.SHORT) {
            return BasicType.SHORT;
        } else if (type == MPI.INT) {
            return BasicType.INT;
        } else if (type == MPI.LONG) {
            return BasicType.LONG;
        } else if (type == MPI.FLOAT) {
            return BasicType.FLOAT;
        } else if (type == MPI.DOUBLE) {
            return BasicType.DOUBLE;
        } else if (type == MPI.FLOAT_COMPLEX) {
            return BasicType.FLOAT_COMPLEX;
        } else if (type == MPI.DOUBLE_COMPLEX) {
            return BasicType.DOUBLE_COMPLEX;
        }
        return null;
    }

    /** How a program names {@code type}'s constant: {@code MPI.DOUBLE}. */
    static String constantName(BasicType type) {
        return "MPI." + type.name();
    }

    /**
     * A readable name of any datatype, for an error message: the {@code MPI.*} constant it is ({@code
     * MPI.INT2}, not {@code mpi.Datatype@1a2b3c} nor Open MPI's {@code MPI_2INT}), else the name a
     * program set on a derived type, else its size and extent as the bindings give them. Failure path only.
     */
    static String describe(Datatype type) {
        if (type == null) {
            return "null";
        }
        BasicType basic = basicType(type);
        if (basic != null) {
            return constantName(basic);
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
        } catch (MPIException | RuntimeException e) {
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
}
