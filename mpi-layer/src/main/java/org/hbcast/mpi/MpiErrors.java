package org.hbcast.mpi;

import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;

/**
 * MPI errors as hbcast reports them: the communicators it owns return errors instead of aborting
 * the job ({@link #returnErrors}), and a failure is described by its MPI error class's name
 * ({@code MPI_ERR_TRUNCATE}), which says more than the class's number and stays the same across
 * MPI libraries and versions, whose numbers do not.
 *
 * <p>Every failure hbcast reports is an {@link MpiFailure} made here: with an MPI error class
 * ({@code MPI_ERR_ARG} for a bad argument, {@code MPI_ERR_ROOT}, {@code MPI_ERR_TRUNCATE},
 * {@code MPI_ERR_TYPE} where ranks disagree, the class of the MPI error underneath, else
 * {@code MPI_ERR_OTHER}) and with its cause. The public API hands it to the program as its binding's
 * exception, with the same message, class and cause.
 */
public final class MpiErrors {
    private MpiErrors() {}

    /** A failure of hbcast's own (a time-out given up on, a peer that stopped): {@code MPI_ERR_OTHER}. */
    public static MpiFailure failed(String message) {
        return new MpiFailure(MpiErrorClass.ERR_OTHER, message);
    }

    /** A failure caused by {@code cause}: its MPI error class where it is an MPI error, else {@code MPI_ERR_OTHER}. */
    public static MpiFailure failed(String message, Throwable cause) {
        MpiErrorClass errorClass = cause instanceof MpiFailure m && m.errorClass() != MpiErrorClass.SUCCESS
                ? m.errorClass()
                : MpiErrorClass.ERR_OTHER;
        return new MpiFailure(errorClass, message, cause);
    }

    /** A bad argument on this rank or a peer's (nothing was sent): {@code MPI_ERR_ARG}. */
    public static MpiFailure badArgument(String message) {
        return new MpiFailure(MpiErrorClass.ERR_ARG, message);
    }

    /** Ranks that disagree on the root: {@code MPI_ERR_ROOT}. */
    public static MpiFailure rootsDisagree(String message) {
        return new MpiFailure(MpiErrorClass.ERR_ROOT, message);
    }

    /** A receiver whose count cannot hold the root's message: {@code MPI_ERR_TRUNCATE}. */
    public static MpiFailure truncated(String message) {
        return new MpiFailure(MpiErrorClass.ERR_TRUNCATE, message);
    }

    /** Ranks whose datatypes do not describe the same bytes: {@code MPI_ERR_TYPE}. */
    public static MpiFailure typesDisagree(String message) {
        return new MpiFailure(MpiErrorClass.ERR_TYPE, message);
    }

    /**
     * Makes MPI errors on {@code comm} come back as {@link MpiFailure}s: under the default handler
     * ({@code MPI_ERRORS_ARE_FATAL}) a truncation or a bad request aborts the whole job before hbcast
     * can fail the call and say why.
     */
    public static MpiComm returnErrors(MpiComm comm) throws MpiFailure {
        comm.returnErrors();
        return comm;
    }

    /**
     * {@code e}'s message with the name of its MPI error class first; just the message for one that
     * no binding classified ({@code MPI_SUCCESS}). For failures only: allocates.
     */
    public static String describe(MpiFailure e) {
        return e.errorClass() == MpiErrorClass.SUCCESS
                ? e.getMessage()
                : e.errorClass().mpiName() + ": " + e.getMessage();
    }
}
