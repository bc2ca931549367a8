package org.hbcast.mpi;

import java.lang.reflect.Constructor;
import java.util.function.IntSupplier;
import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * MPI errors as hbcast reports them: the communicators it owns return errors instead of aborting
 * the job ({@link #returnErrors}), and an {@link MPIException} is described by its MPI error class's
 * name ({@code MPI_ERR_TRUNCATE}), which says more than the class's number and stays the same
 * across Open MPI versions, whose numbers do not.
 *
 * <p>Every failure hbcast reports is an {@link MPIException} made here: with an MPI error class
 * ({@code MPI_ERR_ARG} for a bad argument, {@code MPI_ERR_ROOT}, {@code MPI_ERR_TRUNCATE},
 * {@code MPI_ERR_TYPE} where ranks disagree, the class of the MPI error underneath, else
 * {@code MPI_ERR_OTHER}) and with its cause. The bindings' {@code MPIException} is final, so it cannot
 * be subclassed; its public constructors leave the class at 0 ({@code MPI_SUCCESS}), so the one that
 * takes a class, which the bindings keep to themselves, is reached by reflection (plain access: the
 * bindings are not a named module). Where that fails (another binding) the class stays 0, the message
 * and cause are kept.
 */
public final class MpiErrors {
    private static final Constructor<MPIException> CLASSED = classedConstructor();
    /** {@code MPI_SUCCESS}: 0 by the standard, so known without loading the bindings' library. */
    private static final int SUCCESS = 0;

    private MpiErrors() {}

    /** A failure of hbcast's own (a time-out given up on, a peer that stopped): {@code MPI_ERR_OTHER}. */
    public static MPIException failed(String message) {
        return error(errorClass(() -> MPI.ERR_OTHER), message, null);
    }

    /** A failure caused by {@code cause}: its MPI error class where it is an MPI error, else {@code MPI_ERR_OTHER}. */
    public static MPIException failed(String message, Throwable cause) {
        int errorClass = cause instanceof MPIException m && m.getErrorClass() != SUCCESS
                ? m.getErrorClass()
                : errorClass(() -> MPI.ERR_OTHER);
        return error(errorClass, message, cause);
    }

    /** A bad argument on this rank or a peer's (nothing was sent): {@code MPI_ERR_ARG}. */
    public static MPIException badArgument(String message) {
        return error(errorClass(() -> MPI.ERR_ARG), message, null);
    }

    /** Ranks that disagree on the root: {@code MPI_ERR_ROOT}. */
    public static MPIException rootsDisagree(String message) {
        return error(errorClass(() -> MPI.ERR_ROOT), message, null);
    }

    /** A receiver whose count cannot hold the root's message: {@code MPI_ERR_TRUNCATE}. */
    public static MPIException truncated(String message) {
        return error(errorClass(() -> MPI.ERR_TRUNCATE), message, null);
    }

    /** Ranks whose datatypes do not describe the same bytes: {@code MPI_ERR_TYPE}. */
    public static MPIException typesDisagree(String message) {
        return error(errorClass(() -> MPI.ERR_TYPE), message, null);
    }

    /**
     * The bindings' constant, read from the native library when class {@code MPI} loads; {@code
     * MPI_SUCCESS} (0) where it cannot load (unit tests without Open MPI's library): the message and
     * cause are what matter there.
     */
    private static int errorClass(IntSupplier constant) {
        try {
            return constant.getAsInt();
        } catch (LinkageError e) {
            return SUCCESS;
        }
    }

    /** An exception of class {@code errorClass} (also its code), with {@code message} and {@code cause}. */
    public static MPIException error(int errorClass, String message, Throwable cause) {
        MPIException e = null;
        if (CLASSED != null) {
            try {
                e = CLASSED.newInstance(errorClass, errorClass, message);
            } catch (ReflectiveOperationException | RuntimeException ignored) {
                // Below: the class is lost, the message and the cause are not.
            }
        }
        if (e == null) {
            e = new MPIException(message);
        }
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
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

    /**
     * Makes MPI errors on {@code comm} come back as {@link MPIException}s: under the default
     * handler ({@code MPI_ERRORS_ARE_FATAL}) a truncation or a bad request aborts the whole job
     * before hbcast can fail the call and say why.
     */
    public static <C extends Comm> C returnErrors(C comm) throws MPIException {
        comm.setErrhandler(MPI.ERRORS_RETURN);
        return comm;
    }

    /**
     * {@code e}'s message with the name of its MPI error class first; just the message for one that
     * hbcast raised itself (class 0, {@code MPI_SUCCESS}). For failures only: allocates.
     */
    public static String describe(MPIException e) {
        return e.getErrorClass() == SUCCESS ? e.getMessage() : name(e.getErrorClass()) + ": " + e.getMessage();
    }

    /**
     * The name of MPI error class {@code errorClass} ({@code MPI_ERR_TRUNCATE}), or {@code
     * MPI_ERR_<number>} for one the bindings do not name. The bindings' constants are read from the
     * native library at start, not compile-time constants: hence a chain, not a switch.
     */
    public static String name(int errorClass) {
        if (errorClass == MPI.SUCCESS) {
            return "MPI_SUCCESS";
        }
        if (errorClass == MPI.ERR_BUFFER) {
            return "MPI_ERR_BUFFER";
        }
        if (errorClass == MPI.ERR_COUNT) {
            return "MPI_ERR_COUNT";
        }
        if (errorClass == MPI.ERR_TYPE) {
            return "MPI_ERR_TYPE";
        }
        if (errorClass == MPI.ERR_TAG) {
            return "MPI_ERR_TAG";
        }
        if (errorClass == MPI.ERR_COMM) {
            return "MPI_ERR_COMM";
        }
        if (errorClass == MPI.ERR_RANK) {
            return "MPI_ERR_RANK";
        }
        if (errorClass == MPI.ERR_REQUEST) {
            return "MPI_ERR_REQUEST";
        }
        if (errorClass == MPI.ERR_ROOT) {
            return "MPI_ERR_ROOT";
        }
        if (errorClass == MPI.ERR_GROUP) {
            return "MPI_ERR_GROUP";
        }
        if (errorClass == MPI.ERR_OP) {
            return "MPI_ERR_OP";
        }
        if (errorClass == MPI.ERR_ARG) {
            return "MPI_ERR_ARG";
        }
        if (errorClass == MPI.ERR_UNKNOWN) {
            return "MPI_ERR_UNKNOWN";
        }
        if (errorClass == MPI.ERR_TRUNCATE) {
            return "MPI_ERR_TRUNCATE";
        }
        if (errorClass == MPI.ERR_OTHER) {
            return "MPI_ERR_OTHER";
        }
        if (errorClass == MPI.ERR_INTERN) {
            return "MPI_ERR_INTERN";
        }
        if (errorClass == MPI.ERR_IN_STATUS) {
            return "MPI_ERR_IN_STATUS";
        }
        if (errorClass == MPI.ERR_PENDING) {
            return "MPI_ERR_PENDING";
        }
        if (errorClass == MPI.ERR_NO_MEM) {
            return "MPI_ERR_NO_MEM";
        }
        if (errorClass == MPI.ERR_NOT_SAME) {
            return "MPI_ERR_NOT_SAME";
        }
        if (errorClass == MPI.ERR_SIZE) {
            return "MPI_ERR_SIZE";
        }
        if (errorClass == MPI.ERR_SYSRESOURCE) {
            return "MPI_ERR_SYSRESOURCE";
        }
        if (errorClass == MPI.ERR_UNSUPPORTED_OPERATION) {
            return "MPI_ERR_UNSUPPORTED_OPERATION";
        }
        return "MPI_ERR_" + errorClass;
    }
}
