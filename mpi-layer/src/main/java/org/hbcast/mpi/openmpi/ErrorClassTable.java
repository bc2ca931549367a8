package org.hbcast.mpi.openmpi;

import java.util.function.ToIntFunction;
import org.hbcast.mpi.port.MpiErrorClass;

/**
 * The port's error classes against a binding's numbers, both ways. Open MPI's bindings read their
 * numbers from the native library when class {@code mpi.MPI} loads, so they are no compile-time
 * constants to switch on; and they differ between Open MPI versions, so only the names are stable.
 */
final class ErrorClassTable {
    private static final MpiErrorClass[] CLASSES = MpiErrorClass.values();

    private final int[] codes = new int[CLASSES.length];

    /** @param code each class's number in the binding, distinct */
    ErrorClassTable(ToIntFunction<MpiErrorClass> code) {
        for (MpiErrorClass c : CLASSES) {
            codes[c.ordinal()] = code.applyAsInt(c);
        }
    }

    int code(MpiErrorClass errorClass) {
        return codes[errorClass.ordinal()];
    }

    /** The class of the binding's number {@code code}; {@link MpiErrorClass#ERR_UNKNOWN} for one the port does not name. */
    MpiErrorClass errorClass(int code) {
        for (MpiErrorClass c : CLASSES) {
            if (codes[c.ordinal()] == code) {
                return c;
            }
        }
        return MpiErrorClass.ERR_UNKNOWN;
    }
}
