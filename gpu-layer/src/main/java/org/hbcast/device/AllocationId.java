package org.hbcast.device;

/**
 * Identity of a device allocation as its peers see it: the owning process, the base address, the
 * size and the owner's generation number. Two ids are equal only for the very same allocation, so an
 * IPC mapping cached under one is reused exactly as long as the allocation lives.
 *
 * @param pid        the owning process
 * @param address    base address of the allocation in the owner's address space
 * @param bytes      size of the allocation
 * @param generation the owner's allocation counter at the time ({@link DeviceBuffer#generation()})
 */
public record AllocationId(long pid, long address, long bytes, long generation) {
    /** True when this id and {@code other} name memory at the same address of the same process. */
    public boolean sameAddress(final AllocationId other) {
        return pid == other.pid && address == other.address;
    }
}
