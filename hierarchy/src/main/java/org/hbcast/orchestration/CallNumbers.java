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
    /** What a call adds to the program's count: 0 during create's warm-up, else 1. */
    private long programStep = 1;

    CallNumbers(WaitLimit waits) {
        this.waits = waits;
    }

    /** Numbers the call starting now; returns its stamp. */
    long next() {
        stamp++;
        // Without a branch: one on the warm-up, never taken the program's way while the JIT compiles
        // the warm-up's calls, was compiled as a trap, and the program's first call threw the
        // compiled call path away (docs/tuning.md).
        programCalls += programStep;
        waits.call(programCalls * programStep);
        return stamp;
    }

    /** The program's calls so far. */
    long programCalls() {
        return programCalls;
    }

    /** Marks the calls from now on as create's warm-up ({@code true}) or the program's. */
    void warming(boolean warming) {
        this.programStep = warming ? 0 : 1;
    }
}
