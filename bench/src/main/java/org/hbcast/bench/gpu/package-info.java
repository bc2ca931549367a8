/**
 * Measurements that need a GPU: IPC mapping costs, the device ring's bandwidth against the
 * one-GPU copy bound, and their verdicts; run on a lent device machine.
 */
package org.hbcast.bench.gpu;
