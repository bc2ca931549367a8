package org.hbcast.device;

/**
 * What CUDA says about the memory at an address ({@code cuPointerGetAttribute}, {@code
 * cuMemGetAddressRange}): enough to decide, before a broadcast sends anything, whether memory a
 * program allocated itself can go through the node's CUDA IPC ring ({@link #refusal}).
 *
 * @param kind what the memory is
 * @param device the device ordinal of device and managed memory, -1 otherwise
 * @param rangeBase base address of the allocation holding the address (0 where CUDA knows none)
 * @param rangeBytes size of that allocation
 * @param bufferId the driver's identifier of the allocation, unique for the process's lifetime
 *     ({@code CU_POINTER_ATTRIBUTE_BUFFER_ID}): a new allocation at the same address gets another
 * @param legacyIpcCapable whether {@code cudaIpcGetMemHandle} can export it
 *     ({@code CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE}: {@code cudaMalloc} memory is, pool
 *     and managed memory are not)
 * @param fromPool whether it came from a stream-ordered pool ({@code cudaMallocAsync}; its
 *     {@code CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE} is set)
 */
public record PointerAttributes(
        Kind kind,
        int device,
        long rangeBase,
        long rangeBytes,
        long bufferId,
        boolean legacyIpcCapable,
        boolean fromPool) {

    /** The kinds of memory CUDA tells apart. */
    public enum Kind {
        /** Device memory ({@code CU_MEMORYTYPE_DEVICE}, not managed). */
        DEVICE,
        /** Managed (unified) memory ({@code cudaMallocManaged}). */
        MANAGED,
        /** Host memory CUDA knows: pinned or registered. */
        HOST,
        /** An address CUDA knows nothing of: pageable host memory, freed memory, or no memory at all. */
        UNKNOWN
    }

    /** The attributes of an address CUDA knows nothing of. */
    public static PointerAttributes unknown() {
        return new PointerAttributes(Kind.UNKNOWN, -1, 0, 0, 0, false, false);
    }

    /**
     * Why {@code bytes} at {@code address}, declared on {@code device}, cannot be broadcast over the
     * node's CUDA IPC ring, or null when they can. Pure: the same attributes give the same answer.
     * The ring exports memory with {@code cudaIpcGetMemHandle} and its peers map the whole allocation
     * from its base, so the memory must be legacy-IPC-capable device memory on the declared device,
     * start at its allocation's base and lie inside it.
     */
    public String refusal(final long address, final long bytes, final int device) {
        final String at = bytes + " bytes at 0x" + Long.toHexString(address);
        switch (kind) {
            case UNKNOWN:
                return at + " is not memory CUDA knows (pageable host memory, freed memory, or no allocation):"
                        + " pass device memory from cudaMalloc";
            case HOST:
                return at + " is host memory (pinned or registered), not device memory: use the host overload"
                        + " bcast(Object, ...) with a direct buffer";
            case MANAGED:
                return at + " is managed memory (cudaMallocManaged), which CUDA IPC cannot export:"
                        + " pass device memory from cudaMalloc";
            default:
                break;
        }
        if (this.device != device) {
            return at + " is on device " + this.device + ", not device " + device + " as declared";
        }
        if (fromPool && !legacyIpcCapable) {
            return at + " comes from a stream-ordered memory pool (cudaMallocAsync), which cudaIpcGetMemHandle"
                    + " cannot export (pools export through cuMemPoolExportPointer, which hbcast does not use):"
                    + " pass device memory from cudaMalloc";
        }
        if (!legacyIpcCapable) {
            return at + " cannot be exported with cudaIpcGetMemHandle (not from cudaMalloc):"
                    + " pass device memory from cudaMalloc";
        }
        if (address < rangeBase || address - rangeBase + bytes > rangeBytes) {
            return at + " lies outside its allocation of " + rangeBytes + " bytes at 0x" + Long.toHexString(rangeBase);
        }
        if (address != rangeBase) {
            return at + " starts " + (address - rangeBase) + " bytes into its allocation at 0x"
                    + Long.toHexString(rangeBase) + ": peers map an allocation from its base, so pass the"
                    + " allocation's own address";
        }
        return null;
    }
}
