package org.hbcast.device;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import jcuda.NativePointerObject;
import jcuda.Pointer;

/**
 * A JCuda {@link Pointer} whose address can be read and moved: what the ring needs to hand
 * {@code cudaMemcpyAsync} "buffer + offset" for every chunk without allocating a new {@code Pointer}
 * each time ({@link Pointer#withByteOffset} does).
 *
 * <p>JCuda keeps the address in the private field {@code nativePointer} of {@link NativePointerObject}
 * (plus {@code byteOffset}, which stays 0 here) and its natives read that field on every call, so
 * moving a view is one field write. The field is reached through a private-lookup {@link VarHandle},
 * which works while JCuda is on the class path or an automatic module (both open their packages).
 */
public final class DevicePointer extends Pointer {
    private static final VarHandle NATIVE_POINTER = nativePointerHandle();
    private static final VarHandle BYTE_OFFSET = byteOffsetHandle();

    /** A pointer to nothing (address 0), to be filled by {@code cudaMalloc} or moved with {@link #moveTo}. */
    public DevicePointer() {
        super();
    }

    /** A pointer to {@code address}. */
    public DevicePointer(final long address) {
        super(address);
    }

    /** The address this pointer holds (the device or pinned-host address the natives use). */
    public long address() {
        return getNativePointer() + getByteOffset();
    }

    /** Points this object at {@code address}; returns this. */
    public DevicePointer moveTo(final long address) {
        NATIVE_POINTER.set(this, address);
        return this;
    }

    /**
     * The address {@code pointer} points at (its native pointer plus its byte offset): what a JCuda
     * {@code Pointer} or {@code CUdeviceptr} the program allocated names, read without moving it.
     */
    public static long addressOf(final Pointer pointer) {
        return (long) NATIVE_POINTER.get(pointer) + (long) BYTE_OFFSET.get(pointer);
    }

    /** Points {@code pointer} (with no byte offset, as made by its public constructor) at {@code address}; returns it. */
    static <P extends Pointer> P place(final P pointer, final long address) {
        NATIVE_POINTER.set(pointer, address);
        return pointer;
    }

    private static VarHandle byteOffsetHandle() {
        try {
            return MethodHandles.privateLookupIn(Pointer.class, MethodHandles.lookup())
                    .findVarHandle(Pointer.class, "byteOffset", long.class);
        } catch (final ReflectiveOperationException | IllegalAccessError | SecurityException ex) {
            throw new ExceptionInInitializerError(
                    "cannot reach JCuda's Pointer.byteOffset (" + ex + "); hbcast was checked against JCuda "
                            + IpcHandles.CHECKED_JCUDA + ", the class path has JCuda " + IpcHandles.jcudaVersion());
        }
    }

    private static VarHandle nativePointerHandle() {
        try {
            return MethodHandles.privateLookupIn(NativePointerObject.class, MethodHandles.lookup())
                    .findVarHandle(NativePointerObject.class, "nativePointer", long.class);
        } catch (final ReflectiveOperationException | IllegalAccessError | SecurityException ex) {
            throw new ExceptionInInitializerError(
                    "cannot reach JCuda's NativePointerObject.nativePointer (" + ex + "); hbcast was checked against"
                            + " JCuda " + IpcHandles.CHECKED_JCUDA + ", the class path has JCuda "
                            + IpcHandles.jcudaVersion());
        }
    }
}
