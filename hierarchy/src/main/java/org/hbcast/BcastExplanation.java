package org.hbcast;

/**
 * Why a broadcast of a given size runs the plan it runs ({@link HierarchicalBcast#explain}): the
 * plan, the layout and fingerprint it was chosen for, and what the in-run trials decided. A
 * read-only copy; {@link #text()} is the whole report (the model's best per algorithm, the tuning
 * table's measurements nearby, the calibration's links and warnings).
 *
 * @param bytes the message size explained
 * @param memory {@code host} or {@code device}
 * @param plan what such a call runs now (the plan being tried or kept, for host memory)
 * @param layout the layout as the selector sees it, e.g. "2x2" or "4,2,2 virtual"
 * @param trials for host memory under {@code auto}: {@code kept <plan>} (or {@code kept inline}, the
 *        message riding in the call header) once the trials decided, {@code trying} while they time
 *        the candidates, {@code not tried} where the size is not tried (options, a tuning table, or
 *        device memory)
 * @param text the full report, as {@code hbcast explain} prints it
 */
public record BcastExplanation(
        long bytes,
        String memory,
        BcastPlan plan,
        String layout,
        BcastFingerprint fingerprint,
        String trials,
        String text) {

    /** True once the trials decided for this size: {@link #trials()} starts with {@code kept}. */
    public boolean decided() {
        return trials.startsWith("kept ");
    }
}
