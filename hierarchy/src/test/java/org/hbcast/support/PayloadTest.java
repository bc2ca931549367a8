package org.hbcast.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.call.ElementType;
import org.junit.jupiter.api.Test;

/** The tests' pattern finds every byte that is wrong, wherever it lies, in every container and datatype. */
class PayloadTest {
    private static final int[] COUNTS = {0, 1, 7, 8, 9, 100, 4099};

    @Test
    void aPatternAsTheRootWroteItPasses() {
        for (Payload.Kind kind : Payload.Kind.values()) {
            for (ElementType type : ElementType.values()) {
                for (int count : COUNTS) {
                    Payload p = new Payload(kind, type, count);
                    p.fillPattern(count, 42);
                    assertNull(p.verify(count, 42, true), kind + " " + type + " " + count);
                }
            }
        }
    }

    @Test
    void everyChangedByteIsFoundAndNamed() {
        for (Payload.Kind kind : Payload.Kind.values()) {
            for (ElementType type : new ElementType[] {ElementType.BYTE, ElementType.BOOLEAN, ElementType.DOUBLE}) {
                int count = 37;
                long bytes = (long) count * type.bytes();
                long capacity = bytes + (long) Payload.GUARD_ELEMENTS * type.bytes();
                for (long at = 0; at < capacity; at++) {
                    Payload p = new Payload(kind, type, count);
                    p.fillPattern(count, 7);
                    flip(p, at);
                    String problem = p.verify(count, 7, true);
                    assertNotNull(problem, kind + " " + type + " byte " + at);
                    assertTrue(
                            problem.startsWith(
                                    (at < bytes ? "wrong data" : "write past count") + " at byte " + at + " "),
                            problem);
                }
            }
        }
    }

    @Test
    void aReceiverThatGotNothingOrAnotherCallFails() {
        for (ElementType type : ElementType.values()) {
            Payload p = new Payload(Payload.Kind.BUFFER, type, 64);
            p.fillStale();
            assertNotNull(p.verify(64, 3, false), type + ": stale buffer");
            p.fillPattern(64, 4);
            assertNotNull(p.verify(64, 3, false), type + ": the pattern of another call");
        }
    }

    @Test
    void aChunkAtTheWrongOffsetFails() {
        Payload p = new Payload(Payload.Kind.ARRAY, ElementType.BYTE, 256);
        p.fillPattern(256, 9);
        byte[] a = (byte[]) p.container;
        System.arraycopy(a, 128, a, 64, 64);
        String problem = p.verify(256, 9, true);
        assertTrue(problem != null && problem.startsWith("wrong data at byte 64 "), problem);
    }

    @Test
    void bytesFollowTheWordsLowByteFirstAndBooleansAreZeroOrOne() {
        for (long i = 0; i < 64; i++) {
            long w = Payload.word(i >>> 3, 5, ElementType.BYTE);
            assertEquals((byte) (w >>> ((i & 7) * 8)), Payload.expected(i, 5, ElementType.BYTE));
            byte b = Payload.expected(i, 5, ElementType.BOOLEAN);
            assertTrue(b == 0 || b == 1, "boolean byte " + i + ": " + b);
        }
        assertNotEquals(Payload.word(0, 5, ElementType.BYTE), Payload.word(1, 5, ElementType.BYTE));
        assertNotEquals(Payload.word(0, 5, ElementType.BYTE), Payload.word(0, 6, ElementType.BYTE));
    }

    private static void flip(Payload p, long at) {
        p.putByte(at, (byte) (p.getByte(at) ^ 0x10));
    }
}
