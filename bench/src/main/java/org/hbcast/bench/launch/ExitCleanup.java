package org.hbcast.bench.launch;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * What must not outlive the command when it ends early (an error, Ctrl-C, {@code kill}): the
 * processes it started and the test beds it brought up. One shutdown hook does both, in that order
 * (a bed is torn down only once nothing of the command runs on it); JVM hooks have no order of their
 * own, hence one.
 */
public final class ExitCleanup {
    private static final Set<Process> RUNNING = new LinkedHashSet<>();
    private static final Deque<Runnable> ACTIONS = new ArrayDeque<>();
    private static boolean hooked;

    private ExitCleanup() {}

    /** Ends {@code process} and everything it started if the JVM exits while it runs. */
    public static synchronized void track(Process process) {
        hook();
        RUNNING.add(process);
    }

    public static synchronized void untrack(Process process) {
        RUNNING.remove(process);
    }

    /** Runs {@code action} at exit unless {@link #cancel} removed it first; later actions run first. */
    public static synchronized Runnable atExit(Runnable action) {
        hook();
        ACTIONS.push(action);
        return action;
    }

    public static synchronized void cancel(Runnable action) {
        ACTIONS.remove(action);
    }

    /** Ends a process tree: TERM to every descendant and the process, KILL to what is left after a grace. */
    public static void endTree(Process process, long graceMillis) {
        List<ProcessHandle> tree = process.descendants().toList();
        tree.forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(graceMillis, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
    }

    private static void hook() {
        if (!hooked) {
            Runtime.getRuntime().addShutdownHook(new Thread(ExitCleanup::runAll, "hbcast-bench-cleanup"));
            hooked = true;
        }
    }

    private static void runAll() {
        List<Process> processes;
        List<Runnable> actions;
        synchronized (ExitCleanup.class) {
            processes = List.copyOf(RUNNING);
            actions = List.copyOf(ACTIONS);
            RUNNING.clear();
            ACTIONS.clear();
        }
        processes.forEach(p -> endTree(p, 3000));
        for (Runnable action : actions) {
            try {
                action.run();
            } catch (RuntimeException e) {
                System.err.println("hbcast: cleanup failed: " + e.getMessage());
            }
        }
    }
}
