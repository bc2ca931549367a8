package org.hbcast.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** Argument checks of one call, without MPI. */
class MessageTest {
    private final Message m = new Message();

    @Test
    void sizesInBytesForEveryContainer() {
        assertEquals(
                80,
                m.bind(new double[10], 10, ElementType.DOUBLE, 0, 0, 4, "DOUBLE")
                        .bytes());
        assertEquals(
                80,
                m.bind(new double[20], 5, ElementType.DOUBLE_COMPLEX, 0, 0, 4, "DOUBLE_COMPLEX")
                        .bytes());
        assertEquals(
                40,
                m.bind(ByteBuffer.allocateDirect(40), 10, ElementType.INT, 0, 0, 4, "INT")
                        .bytes());
        assertEquals(
                40,
                m.bind(ByteBuffer.allocateDirect(40).asIntBuffer(), 10, ElementType.INT, 0, 0, 4, "INT")
                        .bytes());
        assertEquals(
                3,
                m.bind(new boolean[3], 3, ElementType.BOOLEAN, 0, 0, 4, "BOOLEAN")
                        .bytes());
        assertEquals(
                0, m.bind(new char[0], 0, ElementType.CHAR, 3, 0, 4, "CHAR").bytes());
    }

    @Test
    void capacityIsCountedInTheContainersOwnUnits() {
        // 10 complex doubles need 20 array entries.
        assertRejected(
                "needs 160 bytes but the buffer holds 152",
                () -> m.bind(new double[19], 10, ElementType.DOUBLE_COMPLEX, 0, 0, 2, "DOUBLE_COMPLEX"));
        assertRejected(
                "needs 44 bytes but the buffer holds 40",
                () -> m.bind(ByteBuffer.allocateDirect(40).asIntBuffer(), 11, ElementType.INT, 0, 0, 2, "INT"));
    }

    @Test
    void badArgumentsNameTheProblem() {
        assertRejected(
                "root 4 is out of range: the communicator has ranks 0..3",
                () -> m.bind(new int[4], 4, ElementType.INT, 4, 0, 4, "INT"));
        assertRejected("count -1 is negative", () -> m.bind(new int[4], -1, ElementType.INT, 0, 0, 4, "INT"));
        assertRejected("heap (non-direct)", () -> m.bind(ByteBuffer.allocate(4), 4, ElementType.BYTE, 0, 0, 4, "BYTE"));
        assertRejected("needs a int[]", () -> m.bind(new long[4], 4, ElementType.INT, 0, 0, 4, "INT"));
        assertRejected(
                "needs a ByteBuffer or a LongBuffer",
                () -> m.bind(ByteBuffer.allocateDirect(64).asIntBuffer(), 4, ElementType.LONG, 0, 0, 4, "LONG"));
        assertRejected(
                "read-only but rank 1 receives",
                () -> m.bind(ByteBuffer.allocateDirect(8).asReadOnlyBuffer(), 8, ElementType.BYTE, 0, 1, 4, "BYTE"));
        assertRejected("not supported", () -> m.bind(new int[4], 4, null, 0, 0, 4, "INT2"));
        assertRejected("Java primitive array or a direct", () -> m.bind("text", 4, ElementType.BYTE, 0, 0, 4, "BYTE"));
        assertRejected(
                "above hbcast's limit",
                () -> m.bind(new double[1], Integer.MAX_VALUE, ElementType.DOUBLE, 0, 0, 4, "DOUBLE"));
    }

    @Test
    void aReadOnlyBufferIsFineAtTheRoot() {
        assertEquals(
                8,
                m.bind(ByteBuffer.allocateDirect(8).asReadOnlyBuffer(), 8, ElementType.BYTE, 2, 2, 4, "BYTE")
                        .bytes());
    }

    private static void assertRejected(String fragment, Runnable call) {
        String message = assertThrows(IllegalArgumentException.class, call::run).getMessage();
        assertTrue(message.contains(fragment), message);
    }
}
