/**
 * What every node transport shares: its set-up lifecycle ({@link org.hbcast.transport.NodeTransport}).
 * The transports themselves live in {@code shm} (host memory) and {@code cuda} (device memory).
 */
package org.hbcast.transport;
