package org.hbcast.transport.shm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** Runs one thread per rank of a node, the way one process per rank runs in production. */
final class Ranks {
    /** What each rank does. */
    interface Body {
        void run(int rank) throws Exception;
    }

    private Ranks() {}

    /** Runs {@code body} on {@code n} threads and fails with every rank's failure if any failed or hung. */
    static void run(final int n, final Duration limit, final Body body) throws Exception {
        final AtomicReferenceArray<Throwable> failures = new AtomicReferenceArray<>(n);
        final List<Thread> threads = new ArrayList<>(n);
        for (int rank = 0; rank < n; rank++) {
            final int r = rank;
            final Thread thread = new Thread(
                    () -> {
                        try {
                            body.run(r);
                        } catch (final Throwable t) {
                            failures.set(r, t);
                        }
                    },
                    "rank-" + rank);
            thread.setDaemon(true);
            threads.add(thread);
        }
        threads.forEach(Thread::start);
        final long deadline = System.nanoTime() + limit.toNanos();
        AssertionError error = null;
        for (int rank = 0; rank < n; rank++) {
            final Thread thread = threads.get(rank);
            thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            if (thread.isAlive()) {
                error = error == null ? new AssertionError("rank " + rank + " still running after " + limit) : error;
                thread.interrupt();
            }
        }
        for (int rank = 0; rank < n; rank++) {
            final Throwable failure = failures.get(rank);
            if (failure != null) {
                if (error == null) {
                    error = new AssertionError("rank " + rank + " failed: " + failure, failure);
                } else {
                    error.addSuppressed(failure);
                }
            }
        }
        if (error != null) {
            throw error;
        }
    }
}
