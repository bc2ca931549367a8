package org.hbcast;

/**
 * What a {@link HierarchicalBcast} holds of GPU memory ({@link HierarchicalBcast#deviceUse()}):
 * CUDA IPC handles are opened once for the node ring's slots and once per call that sends straight
 * into a neighbour's buffer, and every mapping of a neighbour's buffer is closed before that call
 * returns, so that a program may free its device buffers as soon as every rank's call has returned.
 *
 * @param ipcOpens CUDA IPC handles this rank has opened so far (0 before the first device call)
 * @param mapsPeerBuffer whether this rank maps a neighbour's device buffer now: false between calls
 *        that succeeded
 */
public record BcastDeviceUse(long ipcOpens, boolean mapsPeerBuffer) {}
