package org.hbcast.mpi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.mpi.port.MpiFailure;
import org.junit.jupiter.api.Test;

/** The library's failures: each factory's error class, the message as given, the cause kept. */
class MpiErrorsTest {
    @Test
    void eachKindOfFailureHasItsClass() {
        assertEquals(MpiErrorClass.ERR_OTHER, MpiErrors.failed("x").errorClass());
        assertEquals(MpiErrorClass.ERR_ARG, MpiErrors.badArgument("x").errorClass());
        assertEquals(MpiErrorClass.ERR_ROOT, MpiErrors.rootsDisagree("x").errorClass());
        assertEquals(MpiErrorClass.ERR_TRUNCATE, MpiErrors.truncated("x").errorClass());
        assertEquals(MpiErrorClass.ERR_TYPE, MpiErrors.typesDisagree("x").errorClass());
        assertEquals("x", MpiErrors.badArgument("x").getMessage());
        assertNull(MpiErrors.badArgument("x").getCause());
    }

    @Test
    void aFailureCausedByAnMpiErrorTakesItsClass() {
        MpiFailure underneath = MpiErrors.truncated("chunk 3 too long");
        MpiFailure f = MpiErrors.failed("the call failed", underneath);
        assertEquals(MpiErrorClass.ERR_TRUNCATE, f.errorClass());
        assertSame(underneath, f.getCause());
        MpiFailure unclassified = new MpiFailure(MpiErrorClass.SUCCESS, "no class");
        assertEquals(
                MpiErrorClass.ERR_OTHER, MpiErrors.failed("y", unclassified).errorClass());
        assertEquals(
                MpiErrorClass.ERR_OTHER,
                MpiErrors.failed("z", new IllegalStateException()).errorClass());
    }

    @Test
    void aDescriptionNamesTheClassFirst() {
        assertEquals("MPI_ERR_TRUNCATE: too long", MpiErrors.describe(MpiErrors.truncated("too long")));
        assertEquals("no class", MpiErrors.describe(new MpiFailure(MpiErrorClass.SUCCESS, "no class")));
    }
}
