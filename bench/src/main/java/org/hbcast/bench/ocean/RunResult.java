package org.hbcast.bench.ocean;

/**
 * What one run of the model measured (on rank 0; seconds).
 *
 * @param steps time steps
 * @param broadcasts wind-field broadcasts
 * @param totalS wall time of the run, slowest rank
 * @param bcastS time inside the broadcast, mean over ranks (includes waiting for the I/O rank)
 * @param bcastMaxS time inside the broadcast, slowest rank
 * @param haloS time in halo exchange, mean over ranks
 * @param windS time the I/O rank spent computing wind fields
 * @param checksum fingerprint of the final state ({@link StateChecksum})
 */
public record RunResult(
        int steps,
        int broadcasts,
        double totalS,
        double bcastS,
        double bcastMaxS,
        double haloS,
        double windS,
        long checksum) {

    /** Share of the run spent in the broadcast (mean rank). */
    public double bcastShare() {
        return totalS > 0 ? bcastS / totalS : 0;
    }

    public double stepsPerSecond() {
        return totalS > 0 ? steps / totalS : 0;
    }
}
