/**
 * Everything hbcast does over MPI between ranks: the topology (nodes and leaders), the leaders'
 * pipelined trees, the header relay between hosts, refusals and stop notices, and MPI's errors.
 */
package org.hbcast.mpi;
