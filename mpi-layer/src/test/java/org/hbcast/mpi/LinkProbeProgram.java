package org.hbcast.mpi;

import java.util.Arrays;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.testing.MpiTestProgram;

/**
 * Runs {@link LeaderLinkProbe#measureOnce} between rank 0 and the last rank, twice; every rank reports
 * the figures it was given the first time ({@code startupNs}, {@code bytesPerSecond}), whether the
 * second call gave the same ({@code repeatedSame}, 1 or 0), and two cases, the calls.
 */
public final class LinkProbeProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            double[][] figures = new double[1][];
            double[][] again = new double[1][];
            report.check(
                    "probe",
                    () -> figures[0] =
                            LeaderLinkProbe.measureOnce(OpenMpi.comm(world), 0, world.getSize() - 1, f -> f[1] > 0));
            report.check(
                    "again",
                    () -> again[0] =
                            LeaderLinkProbe.measureOnce(OpenMpi.comm(world), 0, world.getSize() - 1, f -> f[1] > 0));
            report.figure("repeatedSame", Arrays.equals(figures[0], again[0]) ? 1 : 0);
            report.figure("startupNs", Math.round(figures[0][0] * 1e9));
            report.figure("bytesPerSecond", Math.round(figures[0][1]));
            return String.format("start-up %.1f us, %.1f MB/s", figures[0][0] * 1e6, figures[0][1] / 1e6);
        });
    }
}
