package org.hbcast.call;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.Array;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.CharBuffer;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.IntBuffer;
import java.nio.LongBuffer;
import java.nio.ShortBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Hostile arguments for one call (issue 8), seeded: counts (negative, huge, Integer.MIN/MAX, around
 * the capacity), roots out of range, every container kind (arrays of each type, direct, heap,
 * read-only, sliced and duplicated buffers with odd position, limit and capacity, typed views,
 * foreign objects, null) and every datatype, unsupported ones included. Each case must be rejected
 * with an IllegalArgumentException carrying a message, or accepted exactly when an independent
 * oracle says it is valid, and then only for bytes that lie inside the container's memory.
 */
class MessageFuzzTest {
    private static final int CASES = 50_000;
    private static final Class<?>[] ARRAYS = {
        byte[].class,
        boolean[].class,
        char[].class,
        short[].class,
        int[].class,
        long[].class,
        float[].class,
        double[].class,
        int[][].class,
        Object[].class
    };

    @Test
    void everyCaseIsRejectedClearlyOrAcceptedInsideTheBuffer() {
        Random rnd = new Random(20261121);
        Message m = new Message();
        int accepted = 0;
        for (int i = 0; i < CASES; i++) {
            Object buf = container(rnd);
            ElementType type =
                    rnd.nextInt(12) == 0 ? null : ElementType.values()[rnd.nextInt(ElementType.values().length)];
            int size = 1 + rnd.nextInt(16);
            int rank = rnd.nextInt(size);
            int root = pick(rnd, new int[] {-1, size, size + 1, Integer.MIN_VALUE, Integer.MAX_VALUE}, size);
            long capacityBytes = capacityBytes(buf);
            int count = count(rnd, type, capacityBytes);
            String why = oracle(buf, count, type, root, rank, size, capacityBytes);
            String describe = "case " + i + ": " + describe(buf) + ", count " + count + ", " + type + ", root " + root
                    + ", rank " + rank + " of " + size;
            try {
                Message bound = m.bind(buf, count, type, root, rank, size, String.valueOf(type));
                if (why != null) {
                    fail(describe + ": accepted although " + why);
                }
                assertEquals((long) count * type.bytes(), bound.bytes(), describe);
                assertTrue(bound.bytes() <= capacityBytes, describe + ": would touch memory past the buffer");
                accepted++;
            } catch (IllegalArgumentException e) {
                if (why == null) {
                    fail(describe + ": rejected although valid: " + e.getMessage());
                }
                assertTrue(e.getMessage() != null && e.getMessage().length() > 10, describe + ": no clear message");
            } catch (RuntimeException e) {
                fail(describe + ": threw " + e, e);
            } finally {
                m.clear();
            }
        }
        assertTrue(accepted > CASES / 10 && accepted < CASES * 9 / 10, "fuzz covers both sides: " + accepted);
    }

    /** Why the call is invalid, or null: written from the contract, not from Message. */
    private static String oracle(
            Object buf, int count, ElementType type, int root, int rank, int size, long capacityBytes) {
        if (type == null) {
            return "the datatype is unsupported";
        }
        if (root < 0 || root >= size) {
            return "the root is out of range";
        }
        if (count < 0) {
            return "the count is negative";
        }
        if (buf == null) {
            return "the buffer is null";
        }
        if (buf instanceof Buffer b) {
            if (!b.isDirect()) {
                return "the buffer is on the heap";
            }
            if (!(b instanceof ByteBuffer) && !type.bufferClass().isInstance(b)) {
                return "the buffer's type does not fit the datatype";
            }
            if (b.isReadOnly() && rank != root) {
                return "a receiver's buffer is read-only";
            }
        } else if (buf.getClass() != type.arrayClass()) {
            return "the container does not fit the datatype";
        }
        long need = (long) count * type.bytes();
        if (need > Message.MAX_BYTES) {
            return "the message is too large";
        }
        return need > capacityBytes ? "the buffer is too small" : null;
    }

    private static Object container(Random rnd) {
        int kind = rnd.nextInt(8);
        int n = rnd.nextInt(5) == 0 ? 0 : rnd.nextInt(300);
        switch (kind) {
            case 0, 1 -> {
                return Array.newInstance(ARRAYS[rnd.nextInt(ARRAYS.length)].getComponentType(), n);
            }
            case 2 -> {
                return rnd.nextBoolean() ? null : rnd.nextBoolean() ? "not a buffer" : Integer.valueOf(n);
            }
            default -> {
                ByteBuffer bb = rnd.nextInt(4) == 0 ? ByteBuffer.allocate(n) : ByteBuffer.allocateDirect(n);
                bb.order(rnd.nextBoolean() ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
                if (rnd.nextBoolean() && n > 0) {
                    bb.position(rnd.nextInt(n + 1));
                    bb.limit(bb.position() + rnd.nextInt(n - bb.position() + 1));
                }
                Buffer b = switch (rnd.nextInt(4)) {
                    case 0 -> bb.slice();
                    case 1 -> bb.duplicate();
                    case 2 -> bb.asReadOnlyBuffer();
                    default -> bb;
                };
                if (rnd.nextInt(3) > 0 && b instanceof ByteBuffer base) {
                    b = view(base.slice(), rnd.nextInt(7));
                }
                if (rnd.nextInt(4) == 0 && b.limit() > 0) {
                    b.position(rnd.nextInt(b.limit() + 1));
                }
                return b;
            }
        }
    }

    private static Buffer view(ByteBuffer bb, int which) {
        return switch (which) {
            case 0 -> bb.asCharBuffer();
            case 1 -> bb.asShortBuffer();
            case 2 -> bb.asIntBuffer();
            case 3 -> bb.asLongBuffer();
            case 4 -> bb.asFloatBuffer();
            case 5 -> bb.asDoubleBuffer();
            default -> bb;
        };
    }

    /** Bytes the container's memory holds from its base address (bindings ignore position). */
    private static long capacityBytes(Object buf) {
        if (buf instanceof Buffer b) {
            int unit = b instanceof ByteBuffer
                    ? 1
                    : b instanceof CharBuffer || b instanceof ShortBuffer
                            ? 2
                            : b instanceof IntBuffer || b instanceof FloatBuffer
                                    ? 4
                                    : b instanceof LongBuffer || b instanceof DoubleBuffer ? 8 : -1;
            return (long) b.capacity() * unit;
        }
        if (buf != null
                && buf.getClass().isArray()
                && buf.getClass().getComponentType().isPrimitive()) {
            Class<?> c = buf.getClass().getComponentType();
            int unit = c == byte.class || c == boolean.class
                    ? 1
                    : c == char.class || c == short.class ? 2 : c == int.class || c == float.class ? 4 : 8;
            return (long) Array.getLength(buf) * unit;
        }
        return 0;
    }

    private static int count(Random rnd, ElementType type, long capacityBytes) {
        int fits = type == null ? 10 : (int) (capacityBytes / type.bytes());
        return switch (rnd.nextInt(8)) {
            case 0 ->
                pick(
                        rnd,
                        new int[] {
                            -1,
                            Integer.MIN_VALUE,
                            Integer.MAX_VALUE,
                            Integer.MAX_VALUE / 2,
                            (int) (Message.MAX_BYTES / 8) + 1,
                            1 << 30
                        },
                        1);
            case 1 -> fits + 1;
            case 2 -> Math.max(0, fits - 1);
            case 3 -> 0;
            default -> fits == 0 ? 0 : rnd.nextInt(fits + 1);
        };
    }

    private static int pick(Random rnd, int[] odd, int validBound) {
        return rnd.nextInt(4) == 0 ? odd[rnd.nextInt(odd.length)] : rnd.nextInt(validBound);
    }

    private static String describe(Object buf) {
        if (buf instanceof Buffer b) {
            return (b.isDirect() ? "direct " : "heap ") + (b.isReadOnly() ? "read-only " : "")
                    + b.getClass().getSimpleName() + "[pos " + b.position() + " lim " + b.limit() + " cap "
                    + b.capacity() + "]";
        }
        return buf == null
                ? "null"
                : buf.getClass().getSimpleName() + (buf.getClass().isArray() ? "[" + Array.getLength(buf) + "]" : "");
    }
}
