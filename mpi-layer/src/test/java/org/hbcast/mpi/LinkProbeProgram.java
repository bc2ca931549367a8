package org.hbcast.mpi;

import org.hbcast.testing.MpiTestProgram;

/**
 * Runs {@link LeaderLinkProbe} between rank 0 and the last rank; every rank reports the figures it
 * was given ({@code startupNs}, {@code bytesPerSecond}) and one case, the probe itself.
 */
public final class LinkProbeProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            double[][] figures = new double[1][];
            report.check("probe", () -> figures[0] = LeaderLinkProbe.measure(world, 0, world.getSize() - 1));
            report.figure("startupNs", Math.round(figures[0][0] * 1e9));
            report.figure("bytesPerSecond", Math.round(figures[0][1]));
            return String.format("start-up %.1f us, %.1f MB/s", figures[0][0] * 1e6, figures[0][1] / 1e6);
        });
    }
}
