/**
 * Everything hbcast does over MPI between ranks below the call's protocol: the topology (nodes and
 * leaders), the leaders' pipelined trees, stop notices, and MPI's errors.
 */
package org.hbcast.mpi;
