package org.hbcast.mpi;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.schedule.TreeShape;
import org.hbcast.stage.Stage;
import org.hbcast.stage.StageException;
import org.hbcast.stage.StageLoop;
import org.hbcast.testing.MpiTestProgram;

/**
 * The leaders' schedule alone (any {@link TreeShape}, {@code shape=}), over every rank of the job, with its persistent requests:
 * <ul>
 *   <li>{@code suite=reuse}: calls with rotating roots on one buffer, then two buffers in turn, then
 *       the first buffer cut into other chunks and back, each checked byte by byte; once every root
 *       has run on a buffer, calls on it make no new request;</li>
 *   <li>{@code suite=abort} (rank 0 and 1 only): rank 1 posts its first receive and aborts; rank 0 sends the
 *       call after all; nothing lands in rank 1's buffer, and the next call on the same objects works.</li>
 *   <li>{@code suite=cuts} (ranks 0 and 1): rank 0 sends 1 MiB cut into {@code sender=} bytes a chunk,
 *       rank 1 receives it cut into {@code receiver=}: rank 1 must fail the call naming the chunk, both
 *       byte counts and rank 0 (detail {@code failed: <message>}), never complete it.</li>
 *   <li>{@code suite=leftover} (ranks 0 and 1): rank 1 aborts call 1 before rank 0 sends it, so all of
 *       call 1 is left queued at rank 1; call 2 must deliver its own bytes, byte for byte, and call 3
 *       (call 1's tags again) must fail naming call 1 rather than take its messages.</li>
 * </ul>
 *
 * <p>The last two run on a duplicate of the world that returns errors, as the library's own
 * communicators do: a truncated receive must surface as an exception, not abort the job.
 */
public final class TreeBroadcastProgram {
    private static final int TAG = 0x4862;
    private static final int ODD_TAG = 0x4866;
    private static final long TIMEOUT_NS = TimeUnit.SECONDS.toNanos(60);

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            Map<String, String> opt = new TreeMap<>();
            for (String a : rest) {
                int eq = a.indexOf('=');
                opt.put(a.substring(0, eq), a.substring(eq + 1));
            }
            int radix = Integer.parseInt(opt.getOrDefault("radix", "2"));
            String suite = opt.getOrDefault("suite", "reuse");
            TreeShape shape = TreeShape.parse("shape", opt.getOrDefault("shape", "knomial"));
            String detail = switch (suite) {
                case "reuse" -> reuse(world, shape, radix);
                case "abort" -> abort(world);
                case "cuts" -> cuts(world, Integer.parseInt(opt.get("sender")), Integer.parseInt(opt.get("receiver")));
                case "leftover" -> leftover(world);
                default -> throw new IllegalArgumentException("unknown suite " + suite);
            };
            report.pass(suite).note("detail", detail);
            return detail;
        });
    }

    private static String reuse(Intracomm world, TreeShape shape, int radix) throws Exception {
        int size = world.getSize();
        int[] everyRank = new int[size];
        for (int r = 0; r < size; r++) {
            everyRank[r] = r;
        }
        int chunk = 64 << 10;
        int bytes = 20 * chunk - 1000; // 20 chunks, more than twice the window; the last one short
        ByteBuffer a = ByteBuffer.allocateDirect(bytes);
        ByteBuffer b = ByteBuffer.allocateDirect(bytes);
        StageLoop loop = new StageLoop(TIMEOUT_NS);
        try (TreeBroadcast tree = new TreeBroadcast(OpenMpi.comm(world), TAG, ODD_TAG)) {
            int call = 0;
            for (int i = 0; i < 2 * size; i++) {
                run(world, tree, loop, shape, everyRank, radix, a, bytes, chunk, call++);
            }
            int kept = tree.persistentRequests();
            if (kept == 0 && size > 1) {
                throw new AssertionError("no persistent request kept after " + call + " calls");
            }
            for (int i = 0; i < 3 * size; i++) {
                run(world, tree, loop, shape, everyRank, radix, a, bytes, chunk, call++);
            }
            if (tree.persistentRequests() != kept) {
                throw new AssertionError(
                        "calls on the same buffer made requests: " + kept + " kept, now " + tree.persistentRequests());
            }
            // Another buffer each call: the requests of the last one must never be started on this one.
            for (int i = 0; i < 2 * size; i++) {
                run(world, tree, loop, shape, everyRank, radix, i % 2 == 0 ? b : a, bytes, chunk, call++);
            }
            // The same buffer cut otherwise, and a shorter message in it, then as at first.
            for (int i = 0; i < size; i++) {
                run(world, tree, loop, shape, everyRank, radix, a, bytes, chunk / 2, call++);
            }
            for (int i = 0; i < size; i++) {
                run(world, tree, loop, shape, everyRank, radix, a, bytes / 3, chunk, call++);
            }
            for (int i = 0; i < size; i++) {
                run(world, tree, loop, shape, everyRank, radix, a, bytes, chunk, call++);
            }
            tree.close();
            if (tree.persistentRequests() != 0) {
                throw new AssertionError("close left " + tree.persistentRequests() + " requests");
            }
            return "calls=" + call + " kept=" + kept;
        }
    }

    /** One checked call of {@code bytes} of {@code buf} from root {@code call % size}. */
    private static void run(
            Intracomm world,
            TreeBroadcast tree,
            StageLoop loop,
            TreeShape shape,
            int[] ranks,
            int radix,
            ByteBuffer buf,
            int bytes,
            int chunk,
            int call)
            throws Exception {
        int size = world.getSize();
        int rank = world.getRank();
        int root = call % size;
        if (rank == root) {
            fill(buf, bytes, call);
        } else {
            stale(buf);
        }
        tree.start(call, shape, ranks, size, rank, root, radix, buf, 1, bytes, chunk, false);
        Stage stalled = loop.clear().add(tree, false).run();
        if (stalled != null) {
            throw new AssertionError("call " + call + " timed out waiting for " + stalled.describeWait());
        }
        check(buf, bytes, call, "call " + call + " (root " + root + ", chunk " + chunk + ")");
    }

    private static String abort(Intracomm world) throws Exception {
        int rank = world.getRank();
        int chunk = 1024; // sent eagerly: rank 0 finishes before rank 1 receives
        int chunks = 4;
        int bytes = chunks * chunk;
        int[] pair = {0, 1};
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        StageLoop loop = new StageLoop(TIMEOUT_NS);
        if (rank > 1) {
            world.barrier();
            world.barrier();
            world.barrier();
            return "idle";
        }
        try (TreeBroadcast tree = new TreeBroadcast(OpenMpi.comm(world), TAG, ODD_TAG)) {
            if (rank == 1) {
                stale(buf);
                tree.start(1, TreeShape.KNOMIAL, pair, 2, 1, 0, 2, buf, 1, bytes, chunk, false);
                tree.progress(); // posts the stamp's receive (the chunks' wait for the stamp)
                if (tree.persistentRequests() != 1) {
                    throw new AssertionError(
                            "the stamp's receive expected posted, " + tree.persistentRequests() + " kept");
                }
                tree.abort();
                if (tree.persistentRequests() != 0) {
                    throw new AssertionError("abort kept " + tree.persistentRequests() + " requests");
                }
            }
            world.barrier();
            if (rank == 0) {
                fill(buf, bytes, 1);
                tree.start(1, TreeShape.KNOMIAL, pair, 2, 0, 0, 2, buf, 1, bytes, chunk, false);
                if (loop.clear().add(tree, false).run() != null) {
                    throw new AssertionError("the root's sends did not complete");
                }
            }
            world.barrier();
            if (rank == 1) {
                Thread.sleep(200);
                for (int i = 0; i < bytes; i++) {
                    if (buf.get(i) != STALE) {
                        throw new AssertionError(
                                "byte " + i + " of the aborted call's buffer was written after the abort");
                    }
                }
                ByteBuffer drain = ByteBuffer.allocateDirect(chunk);
                for (int s = 0; s <= chunks; s++) { // the stamp, then the chunks, under odd calls' tag
                    world.recv(drain, chunk, MPI.BYTE, 0, ODD_TAG);
                }
            }
            world.barrier();
            // The aborted tree starts over: a whole call on the same objects.
            run(world, tree, loop, TreeShape.KNOMIAL, pair, 2, buf, bytes, chunk, 2);
            return rank == 1 ? "nothing landed after the abort; the next call delivered" : "sent";
        }
    }

    /** Rank 0 sends 1 MiB in chunks of {@code senderChunk}; rank 1 expects chunks of {@code receiverChunk}. */
    private static String cuts(Intracomm world, int senderChunk, int receiverChunk) throws Exception {
        int rank = world.getRank();
        int bytes = 1 << 20;
        int[] pair = {0, 1};
        Intracomm comm = returningErrors(world);
        if (rank > 1) {
            return "idle";
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        TreeBroadcast tree = new TreeBroadcast(OpenMpi.comm(comm), TAG, ODD_TAG);
        if (rank == 0) {
            fill(buf, bytes, 1);
            begin(tree, 1, TreeShape.KNOMIAL, pair, 0, 0, buf, bytes, senderChunk);
            // Its chunks past the receiver's failure may never be taken: it times out, or completes.
            Stage stalled =
                    new StageLoop(TimeUnit.SECONDS.toNanos(5)).add(tree, false).run();
            return stalled == null ? "sent" : "timed out";
        }
        stale(buf);
        begin(tree, 1, TreeShape.KNOMIAL, pair, 1, 0, buf, bytes, receiverChunk);
        try {
            Stage stalled = new StageLoop(TIMEOUT_NS).add(tree, false).run();
            throw new AssertionError(
                    stalled == null
                            ? "completed a call cut into " + receiverChunk + "-byte chunks on rank 0's " + senderChunk
                                    + "-byte chunks"
                            : "timed out waiting for " + stalled.describeWait());
        } catch (StageException e) {
            return "failed: " + e.getMessage();
        }
    }

    /** Call 1 aborted by rank 1 before rank 0 sends it; calls 2 and 3 after it (see the class comment). */
    private static String leftover(Intracomm world) throws Exception {
        int rank = world.getRank();
        int chunk = 1024; // eager: rank 0's sends of call 1 complete with nobody receiving them
        int chunks = 4;
        int bytes = chunks * chunk;
        int[] pair = {0, 1};
        Intracomm comm = returningErrors(world);
        if (rank > 1) {
            world.barrier();
            world.barrier();
            world.barrier();
            return "idle";
        }
        ByteBuffer buf = ByteBuffer.allocateDirect(bytes);
        StageLoop loop = new StageLoop(TIMEOUT_NS);
        TreeBroadcast tree = new TreeBroadcast(OpenMpi.comm(comm), TAG, ODD_TAG);
        if (rank == 1) {
            stale(buf);
            begin(tree, 1, TreeShape.KNOMIAL, pair, 1, 0, buf, bytes, chunk);
            tree.progress(); // posts the receives of the window
            tree.abort();
        }
        world.barrier();
        if (rank == 0) {
            fill(buf, bytes, 1);
            begin(tree, 1, TreeShape.KNOMIAL, pair, 0, 0, buf, bytes, chunk);
            if (loop.clear().add(tree, false).run() != null) {
                throw new AssertionError("the root's sends of call 1 did not complete");
            }
        }
        world.barrier();
        if (rank == 1) {
            stale(buf);
        } else {
            fill(buf, bytes, 2);
        }
        begin(tree, 2, TreeShape.KNOMIAL, pair, rank, 0, buf, bytes, chunk);
        Stage stalled = loop.clear().add(tree, false).run();
        if (stalled != null) {
            throw new AssertionError("call 2 timed out waiting for " + stalled.describeWait());
        }
        check(buf, bytes, 2, "call 2, after call 1 was aborted");
        world.barrier();
        if (rank == 0) {
            fill(buf, bytes, 3);
            begin(tree, 3, TreeShape.KNOMIAL, pair, 0, 0, buf, bytes, chunk);
            if (loop.clear().add(tree, false).run() != null) {
                throw new AssertionError("the root's sends of call 3 did not complete");
            }
            return "sent";
        }
        stale(buf);
        begin(tree, 3, TreeShape.KNOMIAL, pair, 1, 0, buf, bytes, chunk);
        try {
            stalled = loop.clear().add(tree, false).run();
            throw new AssertionError(
                    stalled == null
                            ? "call 3 completed on the tags call 1 left its messages under"
                            : "call 3 timed out waiting for " + stalled.describeWait());
        } catch (StageException e) {
            return "call 2 delivered; call 3 failed: " + e.getMessage();
        }
    }

    private static void begin(
            TreeBroadcast tree,
            long call,
            TreeShape shape,
            int[] ranks,
            int me,
            int root,
            ByteBuffer buf,
            int bytes,
            int chunk) {
        tree.start(call, shape, ranks, ranks.length, me, root, 2, buf, 1, bytes, chunk, false);
    }

    private static Intracomm returningErrors(Intracomm world) throws MPIException {
        Intracomm comm = world.dup();
        comm.setErrhandler(MPI.ERRORS_RETURN);
        return comm;
    }

    private static final byte STALE = 0x55;

    private static void fill(ByteBuffer buf, int bytes, int call) {
        for (int i = 0; i < bytes; i++) {
            buf.put(i, pattern(i, call));
        }
    }

    private static void stale(ByteBuffer buf) {
        for (int i = 0; i < buf.capacity(); i++) {
            buf.put(i, STALE);
        }
    }

    private static void check(ByteBuffer buf, int bytes, int call, String what) {
        for (int i = 0; i < buf.capacity(); i++) {
            byte want = i < bytes ? pattern(i, call) : buf.get(i);
            if (buf.get(i) != want) {
                throw new AssertionError(what + ": byte " + i + " is " + buf.get(i) + ", want " + want);
            }
        }
    }

    private static byte pattern(int i, int call) {
        return (byte) (i * 31 + call * 17 + (i >>> 8));
    }
}
