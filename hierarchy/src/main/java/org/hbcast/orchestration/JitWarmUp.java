package org.hbcast.orchestration;

import java.nio.ByteBuffer;
import org.hbcast.header.CallHeaders;
import org.hbcast.header.HeaderRelay;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;
import org.hbcast.mpi.port.ReduceOp;
import org.hbcast.plan.Plan;
import org.hbcast.select.InRunSelection;
import org.hbcast.select.Selector;
import org.hbcast.settings.Log;
import org.hbcast.transport.shm.CallBoard;

/**
 * Runs a JVM's hot paths on small messages at {@code create} until the JIT has compiled them, so
 * that a program's first calls neither run interpreted nor pay for compilations (four JVMs' compiler
 * threads take the cores the ranks need). Collective and bounded: rounds of {@link #HEADER_CALLS}
 * calls through the full call path with a message that rides in its header, {@link #PLAN_CALLS} among
 * them with one past it, then as many runs of each plan the selector may choose, each rank the root
 * in turn ({@link #ROOT_BLOCK} calls in a row) so every role is compiled; after each round the ranks
 * agree how long their JITs compiled, and stop after a quiet round, after {@link #ROUNDS} rounds or
 * past {@link #LIMIT_NS}. Once per JVM: the JIT's work is per process, not per instance.
 * Measurements: docs/tuning.md.
 */
final class JitWarmUp {
    /** Calls a round makes through the header path: enough for the JIT's top tier. */
    static final int HEADER_CALLS = 2048;
    /**
     * Bytes of those calls, in turn: each branch a program's small calls take, so that none is
     * compiled as a trap. Up to {@link HeaderRelay#FIRST_PAYLOAD} every size takes the same branches
     * but the payload ring's next lap, which the lap before the rounds takes.
     */
    private static final int[] HEADER_BYTES = {1, 64, 2048};
    /**
     * Calls of a round, across a network, whose payload has a rest after the header's first network
     * message ({@link HeaderRelay#FIRST_PAYLOAD}), spread over the round: without them the rest's
     * branches were compiled as traps, and a program's first calls of 32-256 KiB threw the compiled
     * header path away on every leader (docs/tuning.md). Few, since each crosses the network.
     */
    static final int REST_CALLS = 16;
    /**
     * Bytes of those calls in turn: a rest that goes eagerly, and one that goes by rendezvous (the
     * most a header carries across a network by default).
     */
    static final int[] REST_BYTES = {2 * HeaderRelay.FIRST_PAYLOAD, CallHeaders.NETWORK_INLINE_BYTES};
    /** Runs of each plan a round makes, of {@link #CHUNKS} chunks of {@link #CHUNK_BYTES}. */
    static final int PLAN_CALLS = 16;
    /** Chunks of a plan's run: more than a pipeline's window and a ring's slots, so their reuse compiles too. */
    static final int CHUNKS = 16;
    /** Bytes of those chunks. */
    static final int CHUNK_BYTES = 4096;
    /** Bytes past the header's capacity that the calls into the plans go. */
    static final int PAST_HEADER_BYTES = 16 << 10;
    /** Most rounds. */
    static final int ROUNDS = 40;
    /**
     * Nanoseconds after which no round starts across a network: with {@link CreateTrials}, which
     * follow and compile the same paths at a program's sizes, the 3 s in which the JITs of a 2-host
     * bed went quiet (docs/tuning.md).
     */
    static final long LIMIT_NS = 3_000_000_000L - CreateTrials.LIMIT_NS;
    /**
     * Nanoseconds from the program's call of {@code create} after which no round starts on one host:
     * a program's first {@code create} (under the agent, its first {@code bcast}) is to take at most
     * a second, the slowest rank's. What the JIT has still to compile then it compiles in the program's
     * first calls, on one host microseconds each; the trials do not begin before {@code
     * TrialSchedule.FIRST_TRIAL_AFTER} calls of a size, so a cold call misleads none of them. With
     * 900 ms from the assembly's start (50-100 ms later) and {@link #ONE_HOST_LEAST_NS} at 250 ms, the
     * slowest first create on one node x 4 here took 1.04-1.24 s (docs/tuning.md).
     */
    static final long ONE_HOST_CREATE_NS = 800_000_000L;
    /**
     * Nanoseconds the warm-up runs on one host however long {@code create} took before it: part of a
     * round, so that the header path and the plans are compiled past the interpreter before the
     * program's first calls. Where other work takes the cores, a create without any warm-up left a
     * program's first call of 1 MiB 108-152 ms and the next ten 6-14 ms each (one node x 4 at a load
     * of 15-20 on 2 cores), against 5-33 and 0.5-4 with it. At 120 ms rather than 250 (and {@link
     * #ONE_HOST_CREATE_NS} from the program's call) a first create took 0.88-1.18 s against 1.04-1.24,
     * the first call of 1 MiB 6-16 ms against 6-19, and the launch's first small sizes 29-74 µs a call
     * against 1-5 (docs/tuning.md).
     */
    static final long ONE_HOST_LEAST_NS = 120_000_000L;
    /** Milliseconds of compilation in a round, on the busiest rank, at or under which the round is quiet. */
    static final int QUIET_MILLIS = 1;

    private static volatile boolean warmedUp;

    /** The instance's calls the warm-up drives. */
    interface Calls {
        /** A call of {@code bytes} of {@code buf} through the full host call path, as a program makes it. */
        void bcast(ByteBuffer buf, int bytes, int root) throws MpiFailure;

        /** One run of {@code plan} on {@code bytes} of {@code buf}, past the header. */
        void run(Plan plan, ByteBuffer buf, int bytes, int root) throws MpiFailure;
    }

    private JitWarmUp() {}

    /** Whether any rank's JVM still needs the warm-up (then all run it: it is collective). */
    static boolean neededSomewhere(MpiComm comm) throws MpiFailure {
        int[] cold = {warmedUp ? 0 : 1};
        comm.allReduce(cold, 1, ReduceOp.MAX);
        return cold[0] != 0 && comm.size() > 1;
    }

    /**
     * The warm-up's message buffer for a layout whose headers carry {@code headerBytes} ({@link
     * Selector#headerBytes}), made before its first call, so that a rank that cannot have it (direct
     * memory short) fails {@code create} with the others instead of leaving them in a call.
     */
    static ByteBuffer buffer(long headerBytes) {
        return ByteBuffer.allocateDirect(Math.toIntExact(headerBytes + PAST_HEADER_BYTES));
    }

    /**
     * Runs the rounds. The trials are paused meanwhile: a cold JIT's times would mislead them; and
     * {@code numbers} counts none of the calls as the program's, so their waits say "setting up".
     *
     * @param headed whether calls carry a header (then the payload ring is lapped once first)
     */
    static void run(
            MpiComm comm,
            Calls calls,
            CallNumbers numbers,
            ByteBuffer buf,
            InRunSelection selection,
            Selector selector,
            boolean headed,
            boolean oneHost,
            long createStartNs)
            throws MpiFailure {
        int size = comm.size();
        selection.pause(true);
        numbers.warming(true);
        try {
            long start = System.nanoTime();
            long limit = limitNs(oneHost, start - createStartNs);
            Deadline deadline = new Deadline(comm, start + limit);
            if (headed) {
                // The largest message that rides in the header untried on every layout (in one network message
                // across one: the path of a program's small calls), until the board's payload ring has gone
                // round once: the next lap is a branch the small calls rarely take, and untaken it threw the
                // compiled header path away in a program's first calls. A byte first, so that the payloads do
                // not tile the ring exactly and one must skip to the next lap.
                calls.bcast(buf, 1, 0);
                int lapBytes = oneHost ? (int) selector.headerBytes() : HeaderRelay.FIRST_PAYLOAD;
                for (int i = 0; i <= CallBoard.RING_BYTES / lapBytes; i++) {
                    calls.bcast(buf, lapBytes, i % size);
                }
            }
            int[] busy = new int[2];
            int rounds = 0;
            do {
                long compiled = JitActivity.compileMillis();
                boolean whole = round(calls, buf, selector, size, deadline, oneHost);
                rounds++;
                busy[0] = (int) Math.min(Math.max(0, JitActivity.compileMillis() - compiled), Integer.MAX_VALUE);
                busy[1] = !whole || System.nanoTime() - start > limit ? 1 : 0;
                comm.allReduce(busy, busy.length, ReduceOp.MAX);
            } while (busy[0] > QUIET_MILLIS && busy[1] == 0 && rounds < ROUNDS);
            if (comm.rank() == 0) {
                long tookMs = (System.nanoTime() - start) / 1_000_000;
                int made = rounds;
                boolean cut = busy[1] != 0;
                Log.info(() -> "hbcast: create's JIT warm-up took " + tookMs + " ms, " + made + " rounds"
                        + (cut ? ", cut at its limit" : ""));
            }
            selection.warmUpAgreement();
        } finally {
            numbers.warming(false);
            selection.pause(false);
        }
        warmedUp = true;
    }

    /**
     * Nanoseconds after the warm-up's start past which no round starts: across a network {@link
     * #LIMIT_NS}; on one host what is left of {@link #ONE_HOST_CREATE_NS} once {@code create} has
     * spent {@code spentNs} before the warm-up, and at least {@link #ONE_HOST_LEAST_NS}.
     */
    static long limitNs(boolean oneHost, long spentNs) {
        return oneHost ? Math.max(ONE_HOST_LEAST_NS, ONE_HOST_CREATE_NS - spentNs) : LIMIT_NS;
    }

    /**
     * The warm-up's time limit, agreed: every rank asks at the same call, and all stop there once any
     * rank's clock has passed it. Asked every {@link #CHECK_EVERY} calls: a round takes tens of
     * milliseconds on a quiet host of four ranks but seconds where other work takes the cores, and a
     * first {@code create} must still end within its budget.
     */
    private static final class Deadline {
        private final MpiComm comm;
        private final long atNs;
        private final int[] passed = new int[1];

        Deadline(MpiComm comm, long atNs) {
            this.comm = comm;
            this.atNs = atNs;
        }

        /** Whether every rank goes on (collective). */
        boolean goOn() throws MpiFailure {
            passed[0] = System.nanoTime() - atNs > 0 ? 1 : 0;
            comm.allReduce(passed, 1, ReduceOp.MAX);
            return passed[0] == 0;
        }
    }

    /**
     * Header calls in a row from one root, each rank in turn: a root may post a board's worth of calls
     * before its readers take them, so the calls move at the pace of the code rather than of the
     * scheduler. A root that changed every call made the round a relay of four processes on two
     * cores: 256 header calls in the 120-150 ms of a first create's warm-up on one node x 4, against
     * 512 in blocks of 64 (docs/tuning.md).
     */
    static final int ROOT_BLOCK = CallBoard.ENTRIES;

    /** Header calls between two asks of the {@link Deadline}. */
    static final int CHECK_EVERY = HEADER_CALLS / 8;

    /** Header calls between two calls past the header's capacity, which go into the plans. */
    private static final int PLAN_CALL_EVERY = HEADER_CALLS / PLAN_CALLS;

    /** Header calls between two calls with a rest, across a network; each falls midway between two. */
    private static final int REST_CALL_EVERY = HEADER_CALLS / REST_CALLS;

    /** One round; false where the deadline cut it short (every rank at the same call). */
    private static boolean round(
            Calls calls, ByteBuffer buf, Selector selector, int size, Deadline deadline, boolean oneHost)
            throws MpiFailure {
        // Calls past the header's payload among them, so that the branch into the plans is in the
        // profile the top tier compiles from: first taken after it, it traps and the compiled code is
        // thrown away.
        for (int i = 0; i < HEADER_CALLS; i++) {
            if (i % CHECK_EVERY == 0 && i > 0 && !deadline.goOn()) {
                return false;
            }
            int root = (i / ROOT_BLOCK) % size;
            calls.bcast(buf, HEADER_BYTES[i % HEADER_BYTES.length], root);
            if (i % PLAN_CALL_EVERY == 0) {
                calls.bcast(buf, buf.capacity(), root);
            }
            if (!oneHost && i % REST_CALL_EVERY == REST_CALL_EVERY / 2) {
                calls.bcast(buf, REST_BYTES[i / REST_CALL_EVERY % REST_BYTES.length], root);
            }
        }
        if (!deadline.goOn()) {
            return false;
        }
        for (Plan p : selector.distinctHostPlans()) {
            Plan small = p.withChunk(CHUNK_BYTES, "warm-up");
            for (int i = 0; i < PLAN_CALLS; i++) {
                calls.run(small, buf, CHUNKS * CHUNK_BYTES, i % size);
            }
        }
        return true;
    }
}
