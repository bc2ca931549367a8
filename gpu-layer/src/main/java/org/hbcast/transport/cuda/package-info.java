/**
 * The CUDA IPC transport: ring links whose chunk slots live in device memory, exchanged between
 * processes by IPC handles, with the link's control fields in shared memory; staging through pinned
 * host memory where peers cannot map each other.
 */
package org.hbcast.transport.cuda;
