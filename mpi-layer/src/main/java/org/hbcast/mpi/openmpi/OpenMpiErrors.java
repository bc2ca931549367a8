package org.hbcast.mpi.openmpi;

import java.lang.reflect.Constructor;
import java.util.Objects;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;

/**
 * Errors between the port and Open MPI's bindings, both ways: a binding's {@link MPIException}
 * becomes an {@link MpiFailure} of its error class inside the adapter, and an {@link MpiFailure}
 * becomes the {@link MPIException} a program catches at the public API.
 *
 * <p>The bindings' {@code MPIException} is final, and its public constructors leave the error class
 * at 0 ({@code MPI_SUCCESS}); the constructor that takes a class, which the bindings keep to
 * themselves, is reached by reflection (plain access: the bindings are not a named module). Where
 * that fails, or where the bindings' native library is not loaded (unit tests), the class stays 0;
 * the message and the cause are kept.
 */
final class OpenMpiErrors {
    /** {@code MPI_SUCCESS}: 0 by the standard, so known without loading the bindings' library. */
    static final int SUCCESS = 0;

    private static final Constructor<MPIException> CLASSED = classedConstructor();

    private OpenMpiErrors() {}

    /** The bindings' numbers, read on first use: loading class {@code MPI} needs Open MPI's native library. */
    private static final class Bindings {
        static final ErrorClassTable TABLE = new ErrorClassTable(OpenMpiErrors::bindingCode);
    }

    static ErrorClassTable bindings() {
        return Bindings.TABLE;
    }

    /** A call into the bindings that returns a value. */
    @FunctionalInterface
    interface BindingCall<T> {
        T call() throws MPIException;
    }

    /** A call into the bindings that returns nothing. */
    @FunctionalInterface
    interface BindingAction {
        void run() throws MPIException;
    }

    /**
     * Makes {@code call}, its binding's exception turned into the port's. For set-up calls only:
     * a lambda that captures its arguments is an object per call, which the hot path (sends,
     * receives, tests) must not make, so those convert in their own {@code catch}.
     */
    static <T> T get(BindingCall<T> call) throws MpiFailure {
        try {
            return call.call();
        } catch (MPIException e) {
            throw failure(e);
        }
    }

    /** {@link #get(BindingCall)} for a call that returns nothing. */
    static void run(BindingAction action) throws MpiFailure {
        try {
            action.run();
        } catch (MPIException e) {
            throw failure(e);
        }
    }

    /** A binding's error as the port's. Failure path only: allocates. */
    static MpiFailure failure(MPIException e) {
        return failure(e, e.getErrorClass() == SUCCESS ? null : bindings());
    }

    /** {@link #failure(MPIException)} against {@code table} (which a class of 0 does not need). */
    static MpiFailure failure(MPIException e, ErrorClassTable table) {
        return new MpiFailure(errorClass(e.getErrorClass(), table), e.getMessage(), e);
    }

    /** The class of the bindings' number {@code code}; {@code table} may be null where {@code code} is 0. */
    static MpiErrorClass errorClass(int code, ErrorClassTable table) {
        return code == SUCCESS ? MpiErrorClass.SUCCESS : table.errorClass(code);
    }

    /** The port's failure as the bindings' exception. Failure path only: allocates. */
    static MPIException mpiException(MpiFailure f) {
        ErrorClassTable table;
        try {
            table = bindings();
        } catch (LinkageError e) {
            // No native library (unit tests): no class but 0 can be named.
            table = null;
        }
        return mpiException(f, table);
    }

    /**
     * {@code f} as an {@link MPIException}: the bindings' own exception where {@code f} only carried it
     * through the port ({@link #failure}, nothing added), so a program catches what Open MPI threw;
     * else a new one of {@code f}'s class with its message, cause and stack. {@code table} null: class 0.
     */
    static MPIException mpiException(MpiFailure f, ErrorClassTable table) {
        if (f.getCause() instanceof MPIException original
                && Objects.equals(original.getMessage(), f.getMessage())
                && (original.getErrorClass() == SUCCESS || table != null)
                && errorClass(original.getErrorClass(), table) == f.errorClass()) {
            return original;
        }
        int code = f.errorClass() == MpiErrorClass.SUCCESS || table == null ? SUCCESS : table.code(f.errorClass());
        MPIException e = classed(code, f.getMessage());
        if (f.getCause() != null) {
            e.initCause(f.getCause());
        }
        // Where the failure happened, as when the library threw MPIExceptions itself.
        e.setStackTrace(f.getStackTrace());
        return e;
    }

    /** An exception of class {@code code} (also its code) with {@code message}, or of class 0 where reflection fails. */
    static MPIException classed(int code, String message) {
        if (CLASSED != null) {
            try {
                return CLASSED.newInstance(code, code, message);
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // Below: the class is lost, the message is not.
            }
        }
        return new MPIException(message);
    }

    private static Constructor<MPIException> classedConstructor() {
        try {
            Constructor<MPIException> c = MPIException.class.getDeclaredConstructor(int.class, int.class, String.class);
            c.setAccessible(true);
            return c;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Open MPI's number of {@code c}. */
    static int bindingCode(MpiErrorClass c) {
        return switch (c) {
            case SUCCESS -> MPI.SUCCESS;
            case ERR_BUFFER -> MPI.ERR_BUFFER;
            case ERR_COUNT -> MPI.ERR_COUNT;
            case ERR_TYPE -> MPI.ERR_TYPE;
            case ERR_TAG -> MPI.ERR_TAG;
            case ERR_COMM -> MPI.ERR_COMM;
            case ERR_RANK -> MPI.ERR_RANK;
            case ERR_REQUEST -> MPI.ERR_REQUEST;
            case ERR_ROOT -> MPI.ERR_ROOT;
            case ERR_GROUP -> MPI.ERR_GROUP;
            case ERR_OP -> MPI.ERR_OP;
            case ERR_ARG -> MPI.ERR_ARG;
            case ERR_UNKNOWN -> MPI.ERR_UNKNOWN;
            case ERR_TRUNCATE -> MPI.ERR_TRUNCATE;
            case ERR_OTHER -> MPI.ERR_OTHER;
            case ERR_INTERN -> MPI.ERR_INTERN;
            case ERR_IN_STATUS -> MPI.ERR_IN_STATUS;
            case ERR_PENDING -> MPI.ERR_PENDING;
            case ERR_NO_MEM -> MPI.ERR_NO_MEM;
            case ERR_NOT_SAME -> MPI.ERR_NOT_SAME;
            case ERR_SIZE -> MPI.ERR_SIZE;
            case ERR_UNSUPPORTED_OPERATION -> MPI.ERR_UNSUPPORTED_OPERATION;
        };
    }
}
