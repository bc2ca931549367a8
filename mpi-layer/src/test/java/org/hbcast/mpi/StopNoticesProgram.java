package org.hbcast.mpi;

import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.WaitLimit;
import org.hbcast.testing.MpiTestProgram;

/**
 * The last rank stops (it tells every other rank, twice: the second must be dropped); every other
 * rank waits, as a call waits for a peer, and notes what it heard in {@code heard}, or
 * {@code nothing} when 20 s passed first, and {@code again}: what a second wait of 0.3 s heard
 * ({@code nothing} is right: one notice per stop).
 */
public final class StopNoticesProgram {
    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            int rank = world.getRank();
            int last = world.getSize() - 1;
            StopNotices notices = new StopNotices(OpenMpi.comm(world), rank);
            if (rank == last) {
                notices.tellAll(7, "boom on rank " + rank);
                notices.tellAll(8, "a second stop, never sent");
            } else {
                report.note("heard", hear(notices, 20_000_000_000L));
                report.note("again", hear(notices, 300_000_000L));
            }
            world.barrier();
            notices.drain();
            report.pass("took part");
            return "stop notices";
        });
    }

    private static String hear(StopNotices notices, long ns) {
        ProgressWait wait = ProgressWait.backingOff(WaitLimit.givingUp(ns).drivingProgress(notices));
        wait.reset();
        try {
            while (!wait.timedOut(0, () -> "a stop notice")) {
                // Nothing moves: only the notice can end the wait early.
            }
            return "nothing";
        } catch (StopNotices.PeerStopped e) {
            return e.getMessage();
        }
    }
}
