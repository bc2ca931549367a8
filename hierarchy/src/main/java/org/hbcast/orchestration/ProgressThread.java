package org.hbcast.orchestration;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The optional thread that moves an instance's non-blocking calls while the program computes: it
 * takes a turn, then backs off (yield while calls wait, park when none does) so that it never burns
 * a core that a rank needs. A daemon: it never keeps the JVM alive.
 */
final class ProgressThread {
    /** Park while no call waits: a new call is also moved by the {@code iBcast} that issues it. */
    private static final long IDLE_PARK_NS = 200_000;
    /** Park between turns while calls wait on peers: shorter than a chunk's trip on a fast link. */
    private static final long BUSY_PARK_NS = 20_000;

    private final Thread thread;
    private volatile boolean running = true;

    /** @param turn one turn of progress: true while calls still wait */
    ProgressThread(String name, BooleanSupplier turn) {
        thread = new Thread(
                () -> {
                    while (running) {
                        LockSupport.parkNanos(turn.getAsBoolean() ? BUSY_PARK_NS : IDLE_PARK_NS);
                    }
                },
                name);
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stops the thread and waits for its turn to end. */
    void stop() {
        running = false;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive()) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
