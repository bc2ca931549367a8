package org.hbcast.transport.cuda;

import java.io.IOException;
import java.io.UncheckedIOException;

/** Runs every release step even when one fails, and rethrows the first failure: for close methods. */
final class Closer {
    /** One release step. */
    @FunctionalInterface
    interface Step {
        void run() throws Exception;
    }

    private Exception first;

    void run(final Step step) {
        try {
            step.run();
        } catch (final Exception ex) {
            if (first == null) {
                first = ex;
            } else {
                first.addSuppressed(ex);
            }
        }
    }

    /** As {@link #rethrow}, for close methods that throw no checked exception: an IOException is wrapped. */
    void rethrowUnchecked() {
        try {
            rethrow();
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    void rethrow() throws IOException {
        if (first instanceof IOException io) {
            throw io;
        }
        if (first instanceof RuntimeException runtime) {
            throw runtime;
        }
        if (first != null) {
            throw new IOException(first);
        }
    }
}
