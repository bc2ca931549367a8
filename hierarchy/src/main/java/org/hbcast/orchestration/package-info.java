/**
 * Assembles an instance at create (settings agreed across ranks, topology, transports connected,
 * all or nothing on every rank) and drives each call through its plan.
 */
package org.hbcast.orchestration;
