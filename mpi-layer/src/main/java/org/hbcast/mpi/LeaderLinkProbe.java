package org.hbcast.mpi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;
import org.hbcast.mpi.port.BasicType;
import org.hbcast.mpi.port.MpiComm;
import org.hbcast.mpi.port.MpiFailure;

/**
 * Measures the link between two node leaders once, when an instance is created, so that a machine
 * with no calibration prices its network from what it is rather than from built-in figures: the
 * pipeline's chunk follows the link's rate (at 1 Gbit/s the built-in 10 Gbit/s figures chose chunks
 * four times too large, and every hop of a chain then waits that much longer for its first one).
 *
 * <p>The two leaders ping-pong in rounds, each a small message there and back, then {@link
 * #LARGE_BYTES} there and an empty one back; each kind's fastest round counts (noise only adds time;
 * the first round also pays for the connection). At least {@link #ROUNDS} rounds, and on until
 * {@link #QUIET_ROUNDS} in a row beat neither kind's fastest by more than {@link #IMPROVEMENT}, up to
 * {@link #MAX_ROUNDS}. Why: create runs the probe while the host's other processes still load
 * classes and compile, and on crowded hosts (8 hosts of one rank, 8 JVMs on 2 cores) the first
 * rounds took 3-35 ms for a round trip of 0.12-0.25 ms: four rounds gave start-ups of up to 708 µs, or
 * no figures at all where the small rounds' best was slower than the large ones' (the built-in 10
 * Gbit/s ones then priced a 1 Gbit/s link), in 4 of 9 launches; with the rounds going on, 75-120 µs
 * in 8 of 8 (docs/tuning.md). The start-up time is half the
 * small round trip, the bandwidth {@code LARGE_BYTES} over what the large round trip adds to it.
 * About 15 ms at 1 Gbit/s where the hosts are quiet, under a millisecond on a fast network.
 *
 * <p>Once per pair of processes in a JVM ({@link #measureOnce}): the same two processes have the same
 * link, and every instance of a program then plans from the same figures.
 */
public final class LeaderLinkProbe {
    /** Least rounds of each kind; the fastest counts. */
    public static final int ROUNDS = 4;
    /** Most rounds of each kind. */
    public static final int MAX_ROUNDS = 32;
    /** A round that beats a kind's fastest by more than this share says the noise has not passed. */
    public static final double IMPROVEMENT = 0.1;
    /** Rounds in a row that beat neither kind's fastest after which the noise has passed. */
    public static final int QUIET_ROUNDS = 3;
    /** The large message: of the chunks' order, long enough beside the start-up time to show the rate. */
    public static final int LARGE_BYTES = 256 << 10;
    /** A tag of its own: it runs on the instance's communicator before anything else does. */
    private static final int TAG = 0x5F00;

    /** What this process learnt of each pair of leaders, by their ranks in {@code MPI.COMM_WORLD}. */
    private static final Map<Long, double[]> MEASURED = new ConcurrentHashMap<>();

    private LeaderLinkProbe() {}

    /**
     * As {@link #measure}, unless leader {@code a} kept figures of this pair of processes before in
     * this JVM: then every rank returns those, after one small broadcast from {@code a}, and the
     * leaders send nothing else. Figures are kept where {@code usable} accepts them (the caller's rule
     * for figures a link can have), so a preempted or too coarse measurement is taken again next time.
     * Collective over {@code comm}.
     */
    public static double[] measureOnce(MpiComm comm, int a, int b, Predicate<double[]> usable) throws MpiFailure {
        long pair = worldPair(comm, a, b);
        double[] known = pair < 0 ? null : MEASURED.get(pair);
        // a alone decides: the other ranks may have met this pair in other communicators, or not.
        double[] told = {known != null ? 1 : 0, known != null ? known[0] : 0, known != null ? known[1] : 0};
        comm.bcast(told, told.length, BasicType.DOUBLE, a);
        if (told[0] != 0) {
            return new double[] {told[1], told[2]};
        }
        double[] figures = measure(comm, a, b);
        if (pair >= 0 && usable.test(figures)) {
            MEASURED.put(pair, figures.clone());
        }
        return figures;
    }

    /**
     * The pair {@code a}, {@code b} of {@code comm} as ranks of {@code MPI.COMM_WORLD}, in either order
     * the same key; -1 where one is outside this process's world (spawned or connected processes).
     */
    private static long worldPair(MpiComm comm, int a, int b) throws MpiFailure {
        int[] world = comm.worldRanks(new int[] {a, b});
        if (world[0] == MpiComm.UNDEFINED || world[1] == MpiComm.UNDEFINED) {
            return -1;
        }
        return ((long) Math.min(world[0], world[1]) << 32) | Math.max(world[0], world[1]);
    }

    /**
     * Collective over {@code comm}: leaders {@code a} and {@code b} (ranks of {@code comm}, distinct)
     * measure their link, and every rank returns the same {@code {startupSeconds, bytesPerSecond}};
     * the bandwidth is 0 where the large round trip took no longer than the empty one (a clock too
     * coarse, or a link too fast for {@link #LARGE_BYTES} to show).
     */
    public static double[] measure(MpiComm comm, int a, int b) throws MpiFailure {
        if (a == b) {
            throw new IllegalArgumentException("the link probe needs two leaders, got rank " + a + " twice");
        }
        double[] figures = new double[2];
        int me = comm.rank();
        ByteBuffer buf = me == a || me == b ? bufferIfBothHaveRoom(comm, me == a ? b : a) : null;
        if (buf != null) {
            if (me == a) {
                long[] fastest = rounds(comm, buf, b);
                long empty = fastest[0];
                long large = fastest[1];
                figures[0] = empty / 2e9;
                figures[1] = large > empty ? LARGE_BYTES / ((large - empty) / 1e9) : 0;
            } else {
                echoRounds(comm, buf, a);
            }
        }
        comm.bcast(figures, 2, BasicType.DOUBLE, a);
        return figures;
    }

    /**
     * The probe's buffer where both leaders can make theirs, else null: one that cannot (its direct memory short)
     * skips the probe with its peer instead of leaving it waiting for a round trip; the figures are
     * then none (0), and the built-in ones stay.
     */
    private static ByteBuffer bufferIfBothHaveRoom(MpiComm comm, int peer) throws MpiFailure {
        ByteBuffer buf;
        try {
            buf = ByteBuffer.allocateDirect(LARGE_BYTES);
        } catch (OutOfMemoryError e) {
            buf = null;
        }
        // Direct, as every buffer this port moves point to point.
        ByteBuffer mine = ByteBuffer.allocateDirect(Integer.BYTES).order(ByteOrder.nativeOrder());
        ByteBuffer theirs = ByteBuffer.allocateDirect(Integer.BYTES).order(ByteOrder.nativeOrder());
        mine.putInt(0, buf != null ? 1 : 0);
        comm.sendRecv(mine, Integer.BYTES, peer, TAG, theirs, Integer.BYTES, peer, TAG);
        return theirs.getInt(0) == 1 ? buf : null;
    }

    /**
     * Leader a's rounds with {@code peer}: each opens with a small message saying whether a round
     * follows, so that the peer, which cannot see the times, stops with it. Returns the fastest
     * small and large round trips, in nanoseconds.
     */
    private static long[] rounds(MpiComm comm, ByteBuffer buf, int peer) throws MpiFailure {
        long empty = Long.MAX_VALUE;
        long large = Long.MAX_VALUE;
        int quiet = 0;
        for (int r = 1; ; r++) {
            buf.putInt(0, 1);
            long e = roundTrip(comm, buf, Integer.BYTES, peer);
            long l = roundTrip(comm, buf, LARGE_BYTES, peer);
            quiet = improves(e, empty) || improves(l, large) ? 0 : quiet + 1;
            empty = Math.min(empty, e);
            large = Math.min(large, l);
            if (r >= MAX_ROUNDS || r >= ROUNDS && quiet >= QUIET_ROUNDS) {
                break;
            }
        }
        buf.putInt(0, 0);
        comm.send(buf, Integer.BYTES, peer, TAG);
        return new long[] {empty, large};
    }

    /** Whether a round of {@code nanos} beats the fastest so far by more than {@link #IMPROVEMENT}. */
    static boolean improves(long nanos, long fastest) {
        return fastest == Long.MAX_VALUE || nanos < fastest * (1 - IMPROVEMENT);
    }

    /** The peer's part of {@link #rounds}: echoes each round until leader a says none follows. */
    private static void echoRounds(MpiComm comm, ByteBuffer buf, int a) throws MpiFailure {
        while (true) {
            comm.recv(buf, Integer.BYTES, a, TAG);
            if (buf.getInt(0) == 0) {
                return;
            }
            comm.send(buf, 0, a, TAG);
            echo(comm, buf, LARGE_BYTES, a);
        }
    }

    private static long roundTrip(MpiComm comm, ByteBuffer buf, int bytes, int peer) throws MpiFailure {
        long start = System.nanoTime();
        comm.send(buf, bytes, peer, TAG);
        comm.recv(buf, 0, peer, TAG);
        return System.nanoTime() - start;
    }

    private static void echo(MpiComm comm, ByteBuffer buf, int bytes, int peer) throws MpiFailure {
        comm.recv(buf, bytes, peer, TAG);
        comm.send(buf, 0, peer, TAG);
    }
}
