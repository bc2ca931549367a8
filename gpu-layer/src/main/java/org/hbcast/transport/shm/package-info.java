/**
 * The shared-memory transport: named segments in {@code /dev/shm} (ring links, the fan-out, the
 * call board), their layouts and header, their ordering rules, and the cleaning of segments left by
 * dead processes. Protocols: {@code docs/protocols/shared-memory.md}.
 */
package org.hbcast.transport.shm;
