package org.hbcast.stage;

/**
 * What a wait waits for and from whom ("the header from root 0: ..."), asked only when a long wait is
 * reported or given up, so that a wait that ends in time builds no text. Waiters keep one bound
 * instance per kind of wait and read the call's details from their own fields.
 */
@FunctionalInterface
public interface Awaited {
    /** The awaited thing and the peer it must come from. Allocates. */
    String awaited();
}
