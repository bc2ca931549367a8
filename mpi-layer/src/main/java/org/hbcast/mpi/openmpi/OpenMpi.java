package org.hbcast.mpi.openmpi;

import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPIException;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.MpiLibrary;

/**
 * The entry to the port's Open MPI binding: a program's communicator as the port's, the library, and
 * what crosses the public API (datatypes in, errors out). The public API and programs that call the
 * library's internals (tools, tests) start here; the internals themselves know only the port.
 */
public final class OpenMpi {
    private OpenMpi() {}

    /** {@code comm} as the port's communicator; not owned (freeing it frees {@code comm}). */
    public static MpiComm comm(Intracomm comm) {
        return new OpenMpiComm(comm);
    }

    /** {@code MPI.COMM_WORLD} as the port's communicator. */
    public static MpiComm world() {
        return OpenMpiLibrary.INSTANCE.world();
    }

    /** Open MPI through its Java bindings; usable before {@code MPI.Init} for its version. */
    public static MpiLibrary library() {
        return OpenMpiLibrary.INSTANCE;
    }

    /** The basic type of the bindings' {@code type}, or null for any other datatype. No allocation. */
    public static BasicType basicType(Datatype type) {
        return OpenMpiTypes.basicType(type);
    }

    /** The bindings' constant of {@code type}: {@code MPI.DOUBLE} for DOUBLE. */
    public static Datatype datatype(BasicType type) {
        return OpenMpiTypes.datatype(type);
    }

    /** A readable name of any datatype, for an error message ({@code MPI.INT2}, a derived type's name). */
    public static String describe(Datatype type) {
        return OpenMpiTypes.describe(type);
    }

    /**
     * {@code failure} as the exception Open MPI's bindings throw: its message, cause and stack, and
     * its error class where the bindings' native library is loaded (else class 0); the bindings' own
     * exception where {@code failure} only carried it. Failure path only: allocates.
     */
    public static MPIException mpiException(MpiFailure failure) {
        return OpenMpiErrors.mpiException(failure);
    }

    /** The port's class of {@code e}'s error class ({@link MpiErrorClass#ERR_UNKNOWN} for one it does not name). */
    public static MpiErrorClass errorClass(MPIException e) {
        int code = e.getErrorClass();
        return OpenMpiErrors.errorClass(code, code == OpenMpiErrors.SUCCESS ? null : OpenMpiErrors.bindings());
    }
}
