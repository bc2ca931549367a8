/**
 * A Java agent that sends an unmodified program's {@code Intracomm.bcast} calls to hbcast:
 * Byte Buddy rewrites the bindings' {@code bcast} to a redirect that keeps one hbcast instance per
 * communicator and falls back to Open MPI's own call where hbcast does not apply.
 */
package org.hbcast.agent;
