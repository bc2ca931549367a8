package org.hbcast.orchestration;

import java.nio.ByteBuffer;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ReduceOp;
import org.hbcast.select.InRunSelection;

/**
 * Runs {@code auto}'s trials of the sizes that cross a network at {@code create}, after the JIT's
 * warm-up where there is one, from the smallest class that tries up to {@link #LARGEST_BYTES}, while a time budget
 * lasts: a program's (and a benchmark's) first calls of those sizes then run the verdict, not the
 * model's guess. The model cannot see everything a real layout does: on the 2-host bed (each host
 * on a core of its own, links not shaped) it priced Open MPI's own bcast twice too slow and the
 * hierarchy's pipeline too fast, and auto ran 0.64-0.78 of Open MPI's speed at 64 KiB-4 MiB, while
 * the in-run trials begin only after {@code TrialSchedule.FIRST_TRIAL_AFTER} calls of a size,
 * past every benchmark's loop (docs/tuning.md).
 *
 * <p>Once per layout in a JVM (its fingerprint), at whichever create first tries those sizes:
 * what they decide is kept at once in the JVM ({@link InRunSelection#keepLearntInJvm}), where its
 * later instances on the layout find it at their create, and written to the cache at close, where a
 * later run finds it.
 *
 * <p>Collective: every rank runs the same calls, rank 0 the root, and the trials' agreement after
 * each block keeps their verdicts alike. The budget is agreed before each size: a size starts only
 * where every rank expects it to end within {@link #LIMIT_NS}, guessing it takes twice the last
 * size's time, and a size under way gives up at the first agreement after a block once any rank is
 * past it (on the 2-host bed the 4 MiB size's blocks had taken the trials to 0.56-1.09 s). Sizes the
 * budget leaves out keep the model's plan and their in-run trials.
 */
final class CreateTrials {
    /** The largest message tried at create: a buffer of it is made for the trials and dropped. */
    static final int LARGEST_BYTES = 4 << 20;
    /** Nanoseconds past the trials' start after which no size starts. */
    static final long LIMIT_NS = 600_000_000L;
    /**
     * Most calls of one size: more than any schedule of six options needs (a lead-in, a screening,
     * two passes of blocks of four); a bound, the same on every rank, should a verdict not come.
     */
    static final int MOST_CALLS = 128;

    /** Fingerprints (layouts of this hardware) whose trials this JVM ran at some create. */
    private static final Set<String> TRIED = ConcurrentHashMap.newKeySet();

    private CreateTrials() {}

    /**
     * Runs the trials (collective), in a buffer made for them: none where no size tries, and none
     * on any rank where one rank cannot have it (direct memory short), since the trials only help.
     *
     * @return the sizes decided
     */
    static int run(MpiComm comm, JitWarmUp.Calls calls, InRunSelection selection, String fingerprintId)
            throws MpiFailure {
        if (!selection.tries(LARGEST_BYTES)) {
            // The same on every rank: the selection comes from agreed inputs.
            return 0;
        }
        // Once per fingerprint in a JVM: a program that makes communicators by the hundred across
        // hosts pays them once; every rank runs them where one has not (a communicator of new ranks).
        int[] flag = {TRIED.contains(fingerprintId) ? 0 : 1};
        comm.allReduce(flag, 1, ReduceOp.MAX);
        if (flag[0] == 0) {
            return 0;
        }
        ByteBuffer buf = null;
        try {
            buf = ByteBuffer.allocateDirect(LARGEST_BYTES);
        } catch (OutOfMemoryError e) {
            // Direct memory short on this rank: none tries, since the trials only help.
        }
        flag[0] = buf == null ? 1 : 0;
        comm.allReduce(flag, 1, ReduceOp.MAX);
        if (flag[0] != 0) {
            return 0;
        }
        long start = System.nanoTime();
        int decided;
        // A size under way gives up at its next block's agreement once the budget is spent.
        selection.stopTrialsAt(start + LIMIT_NS);
        try {
            decided = sizes(comm, calls, selection, buf, start);
        } finally {
            selection.noTrialDeadline();
        }
        TRIED.add(fingerprintId);
        if (comm.rank() == 0 && decided > 0) {
            // Kept now in memory, written at close: the JVM's next instances on this layout (a
            // benchmark's other columns, a program's other communicators) read them at create as their
            // incumbents, without the JSON library's first use in create.
            selection.keepLearntInJvm();
        }
        return decided;
    }

    /** The sizes' trials, smallest first, while the budget lasts; the sizes decided. */
    private static int sizes(MpiComm comm, JitWarmUp.Calls calls, InRunSelection selection, ByteBuffer buf, long start)
            throws MpiFailure {
        int[] flag = new int[1];
        long lastNs = 0;
        int decided = 0;
        for (long bytes = 2; bytes <= LARGEST_BYTES; bytes <<= 1) {
            if (!selection.tries(bytes)) {
                continue;
            }
            long classStart = System.nanoTime();
            flag[0] = classStart - start + 2 * lastNs > LIMIT_NS ? 1 : 0;
            comm.allReduce(flag, 1, ReduceOp.MAX);
            if (flag[0] != 0) {
                break;
            }
            selection.startTrials(bytes);
            int made = 0;
            do {
                calls.bcast(buf, (int) bytes, 0);
                made++;
            } while (selection.trying(bytes) && made < MOST_CALLS);
            if (selection.stoppedAtDeadline()) {
                break;
            }
            decided += selection.trying(bytes) ? 0 : 1;
            lastNs = System.nanoTime() - classStart;
        }
        return decided;
    }
}
