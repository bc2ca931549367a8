package org.hbcast.bench.ocean;

/**
 * One model configuration as the command line gave it: grid, run length, forcing interval, I/O
 * rank and physics. {@link #check(int)} validates it against the job's rank count before any
 * communication.
 *
 * @param nx cells in x
 * @param ny cells in y (cut into one strip per rank)
 * @param steps time steps per run
 * @param forcingEvery the I/O rank broadcasts a fresh wind field every this many steps (K)
 * @param ioRank the rank that computes and broadcasts the wind (it also holds a strip)
 * @param physics the physical parameters and the Courant number
 */
public record OceanSettings(int nx, int ny, int steps, int forcingEvery, int ioRank, OceanParameters physics) {

    /**
     * @return the strip layout for {@code ranks} ranks
     * @throws IllegalArgumentException naming the option at fault
     */
    public StripLayout check(int ranks) {
        if (nx < 2 || ny < 2) {
            throw new IllegalArgumentException(
                    "the grid must be at least 2 x 2 cells (--nx, --ny), not " + nx + " x " + ny);
        }
        if (steps < 0) {
            throw new IllegalArgumentException("--steps must be 0 or more, not " + steps);
        }
        if (forcingEvery < 1) {
            throw new IllegalArgumentException("--forcing-every (K) must be at least 1 step, not " + forcingEvery);
        }
        if (ioRank < 0 || ioRank >= ranks) {
            throw new IllegalArgumentException("--io-rank " + ioRank + " is outside 0.." + (ranks - 1));
        }
        long bytes = WindField.bytes(nx, ny);
        if (bytes > WindField.MAX_BYTES) {
            throw new IllegalArgumentException("a " + nx + " x " + ny + " grid needs a " + bytes
                    + "-byte wind field, more than one broadcast can carry (" + WindField.MAX_BYTES + " bytes)");
        }
        StripLayout layout = new StripLayout(nx, ny, ranks);
        physics.checkStable(ny * physics.dy());
        return layout;
    }
}
