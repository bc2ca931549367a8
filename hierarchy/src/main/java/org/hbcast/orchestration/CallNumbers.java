package org.hbcast.orchestration;

import org.hbcast.stage.WaitLimit;

/**
 * Numbers an instance's calls twice: the stamp, the same on every rank for the same call (the
 * warm-up's and failed calls included), which marks the plans' messages so that no call takes
 * another's; and the program's own count, which reports of long waits and stop notices name. The
 * warm-up's calls are not the program's: their waits say "setting up".
 */
final class CallNumbers {
    private final WaitLimit waits;
    private long stamp;
    private long programCalls;
    private boolean warming;

    CallNumbers(WaitLimit waits) {
        this.waits = waits;
    }

    /** Numbers the call starting now; returns its stamp. */
    long next() {
        stamp++;
        waits.call(warming ? 0 : ++programCalls);
        return stamp;
    }

    /** The program's calls so far. */
    long programCalls() {
        return programCalls;
    }

    /** Marks the calls from now on as create's warm-up ({@code true}) or the program's. */
    void warming(boolean warming) {
        this.warming = warming;
    }
}
