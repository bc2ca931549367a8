package org.hbcast.orchestration;

import java.nio.file.Path;
import java.time.Duration;
import org.hbcast.call.CountRule;
import org.hbcast.plan.PlanChoices;

/**
 * The values of the options that the orchestration uses, as {@code BcastOptions} gives them: what the
 * plans fix, the timeout, the rule for counts, the ring's slots, virtual node sizes (null for real
 * nodes), the tuning table named (null for the default place), whether a run's trials are kept and
 * whether a call fails after the timeout instead of reporting the wait and waiting on, and whether a
 * thread moves the non-blocking calls.
 */
public record BroadcastSettings(
        PlanChoices choices,
        Duration timeout,
        CountRule counts,
        int ringSlots,
        String nodeSizes,
        Path tuningFile,
        boolean keepsLearnt,
        boolean timeoutFails,
        boolean progressThread) {}
