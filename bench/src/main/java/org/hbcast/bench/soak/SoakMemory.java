package org.hbcast.bench.soak;

import org.hbcast.call.ElementType;

/**
 * One memory kind the soak broadcasts from and into: it provides the container of a call, lets the
 * root write the call's pattern into it and a receiver check it. Host kinds are
 * {@link HostMemory}; a device kind (GPU buffers) plugs in here by implementing this interface and
 * adding itself to {@link SoakKind}.
 */
interface SoakMemory extends AutoCloseable {
    /**
     * The container for {@code count} elements of {@code type}, ready for the call: on the root
     * filled with the pattern of {@code key}, on a receiver with its guard zone written.
     */
    Object prepare(ElementType type, int count, long key, boolean root);

    /** After the call: null when the container holds the pattern of {@code key} and its guard is intact. */
    String verify(ElementType type, int count, long key);

    @Override
    default void close() {}
}
