package org.hbcast;

/**
 * What a {@link HierarchicalBcast} holds of GPU memory ({@link HierarchicalBcast#deviceUse()}).
 * Inside a node the ranks are grouped by GPU and one copier per GPU writes its group's buffers: it
 * maps each member's {@code DeviceBuffer} once and keeps the mapping while the buffer lives (closing
 * such a buffer defers its free until every copier has unmapped it, at most two device calls later
 * or at {@code close}). Between GPUs the leaders map the next leader's ring slots once and, from
 * 32 MiB, its buffer once, kept the same way. The program's own memory
 * ({@code DeviceBuffer.ofUserMemory}) is mapped for each call instead and unmapped before its owner's
 * call returns.
 *
 * @param ipcOpens CUDA IPC handles this rank has opened so far (0 before the first device call)
 * @param mapsPeerBuffer whether this rank maps a peer's program memory for one call now: false
 *        between calls that succeeded (the kept mappings above are not counted here)
 */
public record BcastDeviceUse(long ipcOpens, boolean mapsPeerBuffer) {}
