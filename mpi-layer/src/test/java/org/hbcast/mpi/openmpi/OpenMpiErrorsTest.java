package org.hbcast.mpi.openmpi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.HashSet;
import java.util.Set;
import mpi.MPIException;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.junit.jupiter.api.Test;

/**
 * The Open MPI binding's error mapping, without Open MPI's native library: the table against a
 * numbering of its own (the bindings' numbers are read from the library; {@code PortMpiTest} checks
 * them under mpirun), and the exceptions both ways, which need no native code.
 */
class OpenMpiErrorsTest {
    /** Numbers like Open MPI's: SUCCESS 0, the others distinct and scattered, none the enum's ordinal. */
    private static int fakeCode(MpiErrorClass c) {
        return c == MpiErrorClass.SUCCESS ? 0 : 100 + 7 * c.ordinal();
    }

    private static final ErrorClassTable TABLE = new ErrorClassTable(OpenMpiErrorsTest::fakeCode);

    @Test
    void everyClassMapsToItsNumberAndBack() {
        Set<Integer> codes = new HashSet<>();
        for (MpiErrorClass c : MpiErrorClass.values()) {
            assertEquals(fakeCode(c), TABLE.code(c), c.name());
            assertEquals(c, TABLE.errorClass(TABLE.code(c)), c.name());
            codes.add(TABLE.code(c));
        }
        assertEquals(MpiErrorClass.values().length, codes.size(), "distinct numbers");
    }

    @Test
    void aNumberThePortDoesNotNameIsUnknown() {
        assertEquals(MpiErrorClass.ERR_UNKNOWN, TABLE.errorClass(54));
        assertEquals(MpiErrorClass.ERR_UNKNOWN, TABLE.errorClass(-1));
    }

    @Test
    void everyClassHasTheStandardsName() {
        assertEquals("MPI_SUCCESS", MpiErrorClass.SUCCESS.mpiName());
        assertEquals("MPI_ERR_TRUNCATE", MpiErrorClass.ERR_TRUNCATE.mpiName());
        for (MpiErrorClass c : MpiErrorClass.values()) {
            assertEquals("MPI_" + c.name(), c.mpiName());
        }
    }

    @Test
    void aBindingsErrorBecomesAFailureOfItsClassWithItsMessageAndItself() {
        for (MpiErrorClass c : MpiErrorClass.values()) {
            MPIException e = OpenMpiErrors.classed(fakeCode(c), "MPI_ERR_SOMETHING: it went wrong");
            assertEquals(fakeCode(c), e.getErrorClass(), "the reflective constructor sets the class");
            MpiFailure f = OpenMpiErrors.failure(e, TABLE);
            assertEquals(c, f.errorClass(), c.name());
            assertEquals(e.getMessage(), f.getMessage());
            assertSame(e, f.getCause());
        }
    }

    @Test
    void aFailureThatOnlyCarriedTheBindingsErrorGivesItBack() {
        for (MpiErrorClass c : MpiErrorClass.values()) {
            MPIException e = OpenMpiErrors.classed(fakeCode(c), "from Open MPI");
            assertSame(e, OpenMpiErrors.mpiException(OpenMpiErrors.failure(e, TABLE), TABLE), c.name());
        }
        MPIException unnamed = OpenMpiErrors.classed(54, "a class the port does not name");
        assertSame(unnamed, OpenMpiErrors.mpiException(OpenMpiErrors.failure(unnamed, TABLE), TABLE));
    }

    @Test
    void aFailureOfTheLibrarysOwnBecomesAnExceptionOfItsClassMessageCauseAndStack() {
        RuntimeException root = new IllegalStateException("the ring was aborted");
        for (MpiErrorClass c : MpiErrorClass.values()) {
            MpiFailure f = new MpiFailure(c, "hbcast bcast on rank 3: it failed", root);
            MPIException e = OpenMpiErrors.mpiException(f, TABLE);
            assertEquals(fakeCode(c), e.getErrorClass(), c.name());
            assertEquals(f.getMessage(), e.getMessage());
            assertSame(root, e.getCause());
            assertArrayEquals(f.getStackTrace(), e.getStackTrace(), "where the failure happened");
        }
        MPIException plain = OpenMpiErrors.mpiException(new MpiFailure(MpiErrorClass.ERR_ARG, "bad count"), TABLE);
        assertNull(plain.getCause());
    }

    @Test
    void aFailureWrappingABindingsErrorIsANewExceptionWithThatErrorAsItsCause() {
        MPIException underneath = OpenMpiErrors.classed(fakeCode(MpiErrorClass.ERR_TRUNCATE), "truncated");
        MpiFailure carried = OpenMpiErrors.failure(underneath, TABLE);
        MpiFailure wrapped = new MpiFailure(carried.errorClass(), "hbcast: chunk 3 from rank 1: truncated", carried);
        MPIException e = OpenMpiErrors.mpiException(wrapped, TABLE);
        assertEquals(fakeCode(MpiErrorClass.ERR_TRUNCATE), e.getErrorClass());
        assertEquals(wrapped.getMessage(), e.getMessage());
        assertSame(carried, e.getCause());
    }

    @Test
    void withoutTheBindingsLibraryTheClassIsZeroAndTheRestKept() {
        MpiFailure f = new MpiFailure(MpiErrorClass.ERR_ROOT, "roots differ");
        MPIException e = OpenMpiErrors.mpiException(f, null);
        assertEquals(OpenMpiErrors.SUCCESS, e.getErrorClass());
        assertEquals("roots differ", e.getMessage());
    }
}
