package org.hbcast.device;

import java.lang.reflect.Field;
import jcuda.runtime.cudaIpcMemHandle;

/**
 * Converts JCuda's {@link cudaIpcMemHandle} to and from its 64 raw bytes, the form in which handles
 * travel between processes. JCuda keeps the bytes in a private array that its natives fill and read;
 * it offers no accessor, so this class reaches the field once by reflection.
 */
public final class IpcHandles {
    /** Size of a CUDA IPC memory handle ({@code CUDA_IPC_HANDLE_SIZE}). */
    public static final int HANDLE_BYTES = 64;

    private static final Field RESERVED = reservedField();

    private IpcHandles() {}

    /** The 64 bytes of {@code handle}, copied. */
    public static byte[] bytesOf(final cudaIpcMemHandle handle) {
        final byte[] reserved = reserved(handle);
        if (reserved.length != HANDLE_BYTES) {
            throw new IllegalStateException(
                    "JCuda's cudaIpcMemHandle holds " + reserved.length + " bytes, expected " + HANDLE_BYTES);
        }
        return reserved.clone();
    }

    /** A handle holding {@code bytes} (64 of them), as received from the owner of the memory. */
    public static cudaIpcMemHandle handleOf(final byte[] bytes) {
        if (bytes.length != HANDLE_BYTES) {
            throw new IllegalArgumentException("an IPC handle has " + HANDLE_BYTES + " bytes, not " + bytes.length);
        }
        final cudaIpcMemHandle handle = new cudaIpcMemHandle();
        System.arraycopy(bytes, 0, reserved(handle), 0, HANDLE_BYTES);
        return handle;
    }

    /** Overwrites {@code handle} with the 64 bytes at {@code offset} of {@code record}: reuses one handle per call. */
    public static cudaIpcMemHandle fill(final cudaIpcMemHandle handle, final byte[] record, final int offset) {
        if (offset < 0 || offset + HANDLE_BYTES > record.length) {
            throw new IllegalArgumentException(
                    "no " + HANDLE_BYTES + "-byte IPC handle at offset " + offset + " of " + record.length + " bytes");
        }
        System.arraycopy(record, offset, reserved(handle), 0, HANDLE_BYTES);
        return handle;
    }

    private static byte[] reserved(final cudaIpcMemHandle handle) {
        try {
            return (byte[]) RESERVED.get(handle);
        } catch (final IllegalAccessException ex) {
            throw new IllegalStateException("cannot read JCuda's cudaIpcMemHandle bytes", ex);
        }
    }

    /** The JCuda release whose private layout this class was checked against (the build pins it). */
    public static final String CHECKED_JCUDA = "12.6.0";

    /** The JCuda release on the class path, from its jar's Maven metadata; "unknown" where it has none. */
    public static String jcudaVersion() {
        try (var in = cudaIpcMemHandle.class.getResourceAsStream("/META-INF/maven/org.jcuda/jcuda/pom.properties")) {
            if (in == null) {
                return "unknown";
            }
            final java.util.Properties p = new java.util.Properties();
            p.load(in);
            return p.getProperty("version", "unknown");
        } catch (final java.io.IOException ex) {
            return "unknown";
        }
    }

    /**
     * Reaches the field and checks, on load, that it is what this class expects: 64 bytes on a fresh
     * handle. Another JCuda may lay the handle out otherwise; it then fails here, naming both releases,
     * not later with handles that open the wrong memory.
     */
    private static Field reservedField() {
        try {
            final Field field = cudaIpcMemHandle.class.getDeclaredField("reserved");
            field.setAccessible(true);
            final Object bytes = field.get(new cudaIpcMemHandle());
            if (!(bytes instanceof byte[] b) || b.length != HANDLE_BYTES) {
                throw new IllegalStateException("cudaIpcMemHandle.reserved is "
                        + (bytes == null
                                ? "null"
                                : bytes.getClass().getSimpleName()
                                        + (bytes instanceof byte[] b2 ? " of " + b2.length : ""))
                        + ", expected byte[" + HANDLE_BYTES + "]");
            }
            return field;
        } catch (final ReflectiveOperationException | RuntimeException ex) {
            throw new ExceptionInInitializerError("cannot use JCuda's cudaIpcMemHandle (" + ex + "); hbcast was checked"
                    + " against JCuda " + CHECKED_JCUDA + ", the class path has JCuda " + jcudaVersion());
        }
    }
}
