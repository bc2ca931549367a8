package org.hbcast.mpi.port;

import java.util.Objects;

/**
 * A failed MPI operation, or a failure hbcast reports as one: an MPI error class, a message and a
 * cause. The port's one checked exception: a binding turns its own errors into these, and the public
 * API turns them back into its binding's exception where a program catches it.
 */
public final class MpiFailure extends Exception {
    private static final long serialVersionUID = 1L;

    private final MpiErrorClass errorClass;

    public MpiFailure(MpiErrorClass errorClass, String message) {
        this(errorClass, message, null);
    }

    public MpiFailure(MpiErrorClass errorClass, String message, Throwable cause) {
        super(message, cause);
        this.errorClass = Objects.requireNonNull(errorClass, "errorClass");
    }

    /** The MPI error class: {@link MpiErrorClass#SUCCESS} only for a failure nothing classified. */
    public MpiErrorClass errorClass() {
        return errorClass;
    }
}
