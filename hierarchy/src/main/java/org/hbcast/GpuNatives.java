package org.hbcast;

import java.io.IOException;
import org.hbcast.device.JCudaNatives;

/**
 * Makes a GPU program's own first use of JCuda safe when several ranks start at once on a node.
 *
 * <p>JCuda writes its native libraries to a fixed name in {@code java.io.tmpdir} on first use,
 * without a lock, and loads whatever file it finds there: ranks starting together can load a
 * half-written library and die (SIGBUS) or see no device. hbcast puts the libraries in place whole,
 * under a file lock, before it touches JCuda itself; a program that calls JCuda before it creates a
 * {@link HierarchicalBcast} calls {@link #prepare()} first, at the top of {@code main}. Under the
 * Java agent this happens before {@code main} starts.
 */
public final class GpuNatives {
    private GpuNatives() {}

    /**
     * Puts JCuda's native libraries whole into {@code java.io.tmpdir}, safely across processes;
     * idempotent and cheap once done. Loads nothing and needs no GPU.
     *
     * @throws IllegalStateException naming the library and directory when a library cannot be put in
     *     place, or saying that JCuda is not on the class path
     */
    public static void prepare() {
        try {
            JCudaNatives.prepare();
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        } catch (NoClassDefFoundError e) {
            throw new IllegalStateException(
                    "JCuda is not on the class path (org.jcuda:jcuda and jcuda-natives): nothing to prepare", e);
        }
    }

    /** Whether JCuda is on this process's class path (without loading its natives). */
    public static boolean jcudaPresent() {
        try {
            Class.forName("jcuda.LibUtils", false, GpuNatives.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }
}
