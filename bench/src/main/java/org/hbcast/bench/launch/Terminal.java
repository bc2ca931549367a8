package org.hbcast.bench.launch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Whether this process's standard error is a terminal, as {@code [ -t 2 ]} says it. */
public final class Terminal {
    private Terminal() {}

    /** True where file descriptor 2 is a terminal device (Linux's /proc; false where that cannot be read). */
    public static boolean isStandardError() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException e) {
            return false;
        }
    }
}
