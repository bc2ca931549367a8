package org.hbcast.bench.ocean;

import java.util.List;
import java.util.function.LongConsumer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastRequest;
import org.hbcast.HierarchicalBcast;

/**
 * Runs the model on this rank's strip from rest: every K steps the I/O rank computes the wind and
 * broadcasts it with the given implementation, then every rank steps its strip with halo exchange.
 * Collective over the communicator; times the parts and fingerprints the final state.
 */
public final class OceanRun {
    private final Intracomm comm;
    private final OceanSettings settings;
    private final int rank;
    private final StripLayout layout;
    private final Strip strip;
    private final MpiHalos halos;
    private final OceanStepper stepper;
    private final WindField wind;
    /** The field the next broadcast lands in while the steps read {@link #wind}, for overlapped runs. */
    private final WindField spare;

    private final WindStress stress;
    private final double dt;

    /** Collective; {@code settings} must have passed {@link OceanSettings#check(int)} for this size. */
    public OceanRun(Intracomm comm, OceanSettings settings) throws MPIException {
        this.comm = comm;
        this.settings = settings;
        this.rank = comm.getRank();
        this.layout = settings.check(comm.getSize());
        this.strip = layout.strip(rank);
        this.halos = new MpiHalos(comm, strip);
        ShallowWater physics = new ShallowWater(settings.nx(), settings.ny(), settings.physics());
        this.stepper = new OceanStepper(physics, List.of(strip), halos);
        this.wind = new WindField(settings.nx(), settings.ny());
        this.spare = new WindField(settings.nx(), settings.ny());
        this.stress =
                rank == settings.ioRank() ? new WindStress(settings.nx(), settings.ny(), settings.physics()) : null;
        this.dt = physics.dt();
    }

    /**
     * Runs {@code steps} steps from rest with {@code bcast}; {@code progress} hears the step count.
     *
     * @return on rank 0 the timings (over all ranks) and checksum; on the others their own share
     */
    public RunResult run(HierarchicalBcast bcast, int steps, LongConsumer progress) throws Exception {
        strip.reset();
        halos.resetTime();
        int k = settings.forcingEvery();
        int io = settings.ioRank();
        long bcastNs = 0;
        long windNs = 0;
        comm.barrier();
        long start = System.nanoTime();
        for (int step = 0; step < steps; step++) {
            if (step % k == 0) {
                long t0 = System.nanoTime();
                if (stress != null) {
                    stress.fill(wind, step * dt);
                }
                long t1 = System.nanoTime();
                bcast.bcast(wind.buffer(), wind.count(), MPI.DOUBLE, io);
                bcastNs += System.nanoTime() - t1;
                windNs += t1 - t0;
            }
            stepper.step(wind);
            progress.accept(step + 1);
        }
        comm.barrier();
        return result(steps, System.nanoTime() - start, bcastNs, windNs);
    }

    /**
     * {@link #run} with the broadcasts overlapped: the wind field of the next forcing step is
     * broadcast with {@code iBcast} into a second field while the current steps compute, tested
     * between the phases of each step and waited for when it is needed. Each step reads the same
     * field as in {@link #run}, so the final state is bit-identical. The broadcast time is the time
     * spent inside hbcast's calls (issue, tests, wait): what the overlap left exposed.
     */
    public RunResult runOverlapped(HierarchicalBcast bcast, int steps, LongConsumer progress) throws Exception {
        strip.reset();
        halos.resetTime();
        int k = settings.forcingEvery();
        int io = settings.ioRank();
        long[] bcastNs = {0};
        long windNs = 0;
        WindField current = wind;
        WindField next = spare;
        BcastRequest[] pending = {null};
        boolean[] arrived = {false};
        OceanStepper.Between test = () -> {
            if (pending[0] != null && !arrived[0]) {
                long t = System.nanoTime();
                arrived[0] = pending[0].test();
                bcastNs[0] += System.nanoTime() - t;
            }
        };
        comm.barrier();
        long start = System.nanoTime();
        for (int step = 0; step < steps; step++) {
            if (step % k == 0) {
                long t0 = System.nanoTime();
                if (step == 0) {
                    // The first field has nothing to hide behind.
                    if (stress != null) {
                        stress.fill(current, 0);
                    }
                    windNs += System.nanoTime() - t0;
                    t0 = System.nanoTime();
                    bcast.bcast(current.buffer(), current.count(), MPI.DOUBLE, io);
                } else {
                    if (!arrived[0]) {
                        pending[0].waitFor();
                    }
                    WindField swap = current;
                    current = next;
                    next = swap;
                }
                pending[0] = null;
                long t1 = System.nanoTime();
                bcastNs[0] += t1 - t0;
                if (step + k < steps) {
                    if (stress != null) {
                        stress.fill(next, (step + k) * dt);
                    }
                    long t2 = System.nanoTime();
                    windNs += t2 - t1;
                    arrived[0] = false;
                    pending[0] = bcast.iBcast(next.buffer(), next.count(), MPI.DOUBLE, io);
                    bcastNs[0] += System.nanoTime() - t2;
                }
            }
            stepper.step(current, test);
            progress.accept(step + 1);
        }
        comm.barrier();
        return result(steps, System.nanoTime() - start, bcastNs[0], windNs);
    }

    private RunResult result(int steps, long total, long bcastNs, long windNs) throws MPIException {
        int k = settings.forcingEvery();
        long[] mine = {total, bcastNs, halos.nanos(), windNs};
        long[] sum = new long[mine.length];
        long[] max = new long[mine.length];
        comm.reduce(mine, sum, mine.length, MPI.LONG, MPI.SUM, 0);
        comm.reduce(mine, max, mine.length, MPI.LONG, MPI.MAX, 0);
        long checksum = checksum();
        double ranks = comm.getSize();
        return new RunResult(
                steps,
                (steps + k - 1) / k,
                max[0] / 1e9,
                sum[1] / ranks / 1e9,
                max[1] / 1e9,
                sum[2] / ranks / 1e9,
                max[3] / 1e9,
                checksum);
    }

    /** The state checksum on rank 0 (row fingerprints gathered in rank order); 0 elsewhere. */
    private long checksum() throws MPIException {
        long[] rows = StateChecksum.rowHashes(strip);
        if (rank != 0) {
            comm.gatherv(rows, rows.length, MPI.LONG, 0);
            return 0;
        }
        int size = comm.getSize();
        int[] counts = new int[size];
        int[] displs = new int[size];
        for (int r = 0; r < size; r++) {
            counts[r] = layout.rows(r);
            displs[r] = layout.firstRow(r);
        }
        long[] all = new long[settings.ny()];
        comm.gatherv(rows, rows.length, MPI.LONG, all, counts, displs, MPI.LONG, 0);
        return StateChecksum.combine(all);
    }

    public StripLayout layout() {
        return layout;
    }
}
