package org.hbcast.transport.shm;

import java.time.Duration;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;
import org.hbcast.stage.StageLoop;

/** Runs stages to the end in the library's one loop, as a call does; a timeout becomes an exception. */
final class Drive {
    /** The timeout of a test's loop, with the message the orchestrator's own would carry. */
    static final class TimedOut extends StageException {
        private static final long serialVersionUID = 1L;

        TimedOut(final String message) {
            super(message);
        }
    }

    private Drive() {}

    /** Drives {@code stage} alone (a stage started fed is never fed: its feeder is absent). */
    static void alone(final Stage stage, final Duration timeout) {
        check(new StageLoop(timeout.toNanos()).add(stage, false), timeout);
    }

    /** Drives {@code feeder}, then {@code fed} fed by it, in one loop. */
    static void fed(final Stage feeder, final Stage fed, final Duration timeout) {
        check(
                new StageLoop(ProgressWait.backingOff(timeout.toNanos()))
                        .add(feeder, false)
                        .add(fed, true),
                timeout);
    }

    private static void check(final StageLoop loop, final Duration timeout) {
        final Stage stalled = loop.run();
        if (stalled != null) {
            throw new TimedOut("timed out after " + timeout.toMillis() + " ms waiting for " + stalled.describeWait());
        }
    }
}
