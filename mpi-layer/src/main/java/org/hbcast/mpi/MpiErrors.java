package org.hbcast.mpi;

import mpi.Comm;
import mpi.MPI;
import mpi.MPIException;

/**
 * MPI errors as hbcast reports them: the communicators it owns return errors instead of aborting
 * the job ({@link #returnErrors}), and an {@link MPIException} is described by its MPI error class's
 * name ({@code MPI_ERR_TRUNCATE}), which says more than the class's number and stays the same
 * across Open MPI versions, whose numbers do not.
 */
public final class MpiErrors {
    private MpiErrors() {}

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
        return e.getErrorClass() == MPI.SUCCESS ? e.getMessage() : name(e.getErrorClass()) + ": " + e.getMessage();
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
