package org.hbcast.api;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.BcastRequest;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.ExpectError;
import org.hbcast.support.Payload;
import org.hbcast.testing.OnRanks;
import org.hbcast.testing.Ranks;

/**
 * {@code iBcast} on real launches: every root, odd sizes of every container, several requests
 * outstanding completed in and out of issue order, mixed with blocking calls, the progress thread,
 * arguments refused before anything is sent, a late root, and bytes identical to Open MPI's bcast.
 */
class NonBlockingBcastMpiTest {
    /**
     * Per launch, the options of its instances: on {@code "4"} one real node, then two virtual nodes of
     * two ({@code HBCAST_NODE_SIZES=2,2} as an option in code), each its own instance on the one launch
     * (a launch, a JVM per rank, is the suite's cost); elsewhere the launch's own settings.
     */
    private static List<BcastOptions> layouts(Ranks ranks) {
        BcastOptions launched = BcastOptions.defaults();
        return ranks.layout().equals("4") ? List.of(launched, launched.withNodeSizes("2,2")) : List.of(launched);
    }

    /** The prefix of a case's name: the virtual nodes its instance runs on. */
    private static String on(BcastOptions options) {
        return options.nodeSizes() == null ? "" : "nodes " + options.nodeSizes() + ": ";
    }

    /** A case that runs on one instance. */
    private interface OnInstance {
        void run(HierarchicalBcast hb) throws Exception;
    }

    /** One case, {@code name}, on an instance of each of the launch's layouts ({@link #layouts}). */
    private static void onEachLayout(Ranks ranks, String name, OnInstance body) throws Exception {
        List<BcastOptions> layouts = layouts(ranks);
        ranks.plan(layouts.size());
        for (BcastOptions options : layouts) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(ranks.world(), options)) {
                ranks.check(on(options) + name, () -> body.run(hb));
            }
        }
    }

    private static final String CHUNK = "HBCAST_CHUNK_BYTES=65536";
    /** Odd counts: inside a header, a few chunks with a tail, many chunks with a tail. */
    private static final int[] COUNTS = {1, 4093, 300_007, (1 << 20) + 13};

    /** One outstanding broadcast: its payload, root and seed. */
    private record Outstanding(BcastRequest request, Payload payload, int count, int root, long seed) {
        void check(boolean wasRoot) {
            String problem = payload.verify(count, seed, wasRoot);
            if (problem != null) {
                throw new AssertionError("iBcast " + seed + " (root " + root + ", count " + count + "): " + problem);
            }
        }
    }

    @OnRanks(
            value = {"4", "bed 2x2"},
            env = CHUNK)
    void everyRootOddSizesCompletedInAndOutOfOrder(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        int size = ranks.size();
        // Per root: the requests in order, reversed, by test loops, and around a blocking call.
        List<BcastOptions> layouts = layouts(ranks);
        ranks.plan(layouts.size() * (4 * size + 1));
        for (BcastOptions options : layouts) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(world, options)) {
                long seed = 1;
                for (int root = 0; root < size; root++) {
                    int r = root;
                    for (String order : new String[] {"in order", "reversed", "by tests", "around bcast"}) {
                        long first = seed;
                        seed += COUNTS.length + 1;
                        ranks.check(
                                on(options) + "root " + r + ", " + order,
                                () -> outstanding(hb, world, r, order, first));
                    }
                }
                ranks.check(on(options) + "bytes as Open MPI's bcast", () -> sameAsOpenMpi(hb, world));
            }
        }
    }

    /** Issues one request per count (each container and datatype in turn), completes them as {@code order} says. */
    private static void outstanding(HierarchicalBcast hb, Intracomm world, int root, String order, long seed)
            throws Exception {
        boolean isRoot = world.getRank() == root;
        List<Outstanding> calls = new ArrayList<>();
        Payload.Kind[] kinds = Payload.Kind.values();
        ElementType[] types = {ElementType.BYTE, ElementType.DOUBLE, ElementType.INT, ElementType.SHORT};
        for (int i = 0; i < COUNTS.length; i++) {
            ElementType type = types[i % types.length];
            Payload p = new Payload(kinds[(i + root) % kinds.length], type, COUNTS[i] / type.bytes() + 1);
            int count = COUNTS[i] / type.bytes() + 1;
            if (isRoot) {
                p.fillPattern(count, seed + i);
            } else {
                p.fillStale();
            }
            calls.add(new Outstanding(
                    hb.iBcast(p.container, count, Broadcasts.datatype(type), root), p, count, root, seed + i));
        }
        switch (order) {
            case "in order" -> {
                for (Outstanding o : calls) {
                    o.request().waitFor();
                }
            }
            case "reversed" -> {
                // The last waits for all before it: every one is complete when it returns.
                calls.get(calls.size() - 1).request().waitFor();
                for (Outstanding o : calls) {
                    if (!o.request().isDone()) {
                        throw new AssertionError("iBcast " + o.seed() + " not done after a later one completed");
                    }
                }
                for (int i = calls.size() - 2; i >= 0; i--) {
                    calls.get(i).request().waitFor();
                }
            }
            case "by tests" -> {
                // Tests only, last first: no wait ever blocks, yet all complete.
                long deadline = System.nanoTime() + 60_000_000_000L;
                boolean[] seen = new boolean[calls.size()];
                int left = calls.size();
                while (left > 0) {
                    for (int i = calls.size() - 1; i >= 0; i--) {
                        if (!seen[i] && calls.get(i).request().test()) {
                            seen[i] = true;
                            left--;
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError(left + " requests never completed by tests alone");
                    }
                }
            }
            case "around bcast" -> {
                // A blocking call after outstanding ones completes them first, and moves its own bytes.
                Broadcasts.check(
                        hb,
                        world,
                        Payload.Kind.BUFFER,
                        ElementType.BYTE,
                        70_001,
                        (root + 1) % world.getSize(),
                        seed + 99);
                for (Outstanding o : calls) {
                    if (!o.request().isDone()) {
                        throw new AssertionError("iBcast " + o.seed() + " not done after a later blocking bcast");
                    }
                    o.request().waitFor();
                }
            }
            default -> throw new IllegalArgumentException(order);
        }
        for (Outstanding o : calls) {
            o.check(isRoot);
        }
    }

    /** The same bytes through iBcast and through Open MPI's own bcast, compared byte by byte. */
    private static void sameAsOpenMpi(HierarchicalBcast hb, Intracomm world) throws MPIException {
        int bytes = 3 * (1 << 20) + 7;
        ByteBuffer ours = ByteBuffer.allocateDirect(bytes);
        ByteBuffer theirs = ByteBuffer.allocateDirect(bytes);
        int root = world.getSize() - 1;
        if (world.getRank() == root) {
            for (int i = 0; i < bytes; i++) {
                byte b = (byte) (i * 31 + (i >>> 11));
                ours.put(i, b);
                theirs.put(i, b);
            }
        }
        BcastRequest r = hb.iBcast(ours, bytes, MPI.BYTE, root);
        world.bcast(theirs, bytes, MPI.BYTE, root);
        r.waitFor();
        if (ours.mismatch(theirs) >= 0) {
            throw new AssertionError("iBcast differs from Open MPI's bcast at byte " + ours.mismatch(theirs));
        }
    }

    /** The progress thread completes a request that the program never tests while it computes. */
    @OnRanks(
            value = {"4"},
            env = {CHUNK, "HBCAST_PROGRESS_THREAD=1"},
            threads = Ranks.Threads.MULTIPLE)
    void progressThreadCompletesWithoutTests(Ranks ranks) throws Exception {
        List<BcastOptions> layouts = layouts(ranks);
        ranks.plan(layouts.size() * 2);
        for (BcastOptions options : layouts) {
            try (HierarchicalBcast hb = HierarchicalBcast.create(ranks.world(), options)) {
                for (int root : new int[] {0, ranks.size() - 1}) {
                    ranks.check(on(options) + "root " + root, () -> {
                        int count = 4 << 20;
                        Payload p = new Payload(Payload.Kind.BUFFER, ElementType.BYTE, count);
                        boolean isRoot = ranks.rank() == root;
                        if (isRoot) {
                            p.fillPattern(count, 77 + root);
                        } else {
                            p.fillStale();
                        }
                        BcastRequest r = hb.iBcast(p.container, count, MPI.BYTE, root);
                        long deadline = System.nanoTime() + 60_000_000_000L;
                        // The program computes and only looks: only the progress thread can move the call.
                        while (!r.isDone()) {
                            if (System.nanoTime() > deadline) {
                                throw new AssertionError("the progress thread did not complete the call in 60 s");
                            }
                            Thread.onSpinWait();
                        }
                        r.waitFor();
                        String problem = p.verify(count, 77 + root, isRoot);
                        if (problem != null) {
                            throw new AssertionError(problem);
                        }
                    });
                }
            }
        }
    }

    /** Without a progress thread an untested request still completes inside the instance's next call. */
    @OnRanks(
            value = {"4"},
            env = CHUNK)
    void withoutProgressThreadNothingMovesUntilTested(Ranks ranks) throws Exception {
        onEachLayout(ranks, "a later iBcast moves the earlier one", hb -> {
            int count = 2 << 20;
            Payload a = new Payload(Payload.Kind.ARRAY, ElementType.BYTE, count);
            Payload b = new Payload(Payload.Kind.BUFFER, ElementType.BYTE, 5);
            boolean isRoot = ranks.rank() == 1;
            if (isRoot) {
                a.fillPattern(count, 5);
                b.fillPattern(5, 6);
            } else {
                a.fillStale();
                b.fillStale();
            }
            BcastRequest ra = hb.iBcast(a.container, count, MPI.BYTE, 1);
            BcastRequest rb = hb.iBcast(b.container, 5, MPI.BYTE, 1);
            rb.waitFor();
            if (!ra.isDone()) {
                throw new AssertionError("the first request is not done after the second completed");
            }
            ra.waitFor();
            for (String problem : new String[] {a.verify(count, 5, isRoot), b.verify(5, 6, isRoot)}) {
                if (problem != null) {
                    throw new AssertionError(problem);
                }
            }
        });
    }

    /**
     * A receiver's bad argument fails its own request, a root's fails every rank's (nothing sent),
     * each when it is waited for, and the next request goes through; past the outstanding limit a request is refused at once.
     */
    @OnRanks(
            value = {"4", "bed 2x2"},
            env = CHUNK)
    void badArgumentsRefusedBeforeSending(Ranks ranks) throws Exception {
        List<BcastOptions> layouts = layouts(ranks);
        ranks.plan(layouts.size() * 4);
        for (BcastOptions options : layouts) {
            Intracomm world = ranks.world();
            int rank = ranks.rank();
            int size = ranks.size();
            try (HierarchicalBcast hb = HierarchicalBcast.create(world, options)) {
                ranks.check(on(options) + "a buffer too small on the last rank", () -> {
                    int count = 100_000;
                    ByteBuffer buf = ByteBuffer.allocateDirect(rank == size - 1 ? 10 : count);
                    BcastRequest r = hb.iBcast(buf, count, MPI.BYTE, 0);
                    if (rank == size - 1) {
                        // Only it fails, as with Open MPI: it takes part into scratch memory so the others finish.
                        ExpectError.of("iBcast on rank " + rank, r::waitFor);
                    } else {
                        r.waitFor();
                    }
                });
                ranks.check(on(options) + "a negative count on the root", () -> {
                    ByteBuffer buf = ByteBuffer.allocateDirect(64);
                    BcastRequest r = hb.iBcast(buf, rank == 1 ? -3 : 64, MPI.BYTE, 1);
                    // The root refuses the call in its header: every rank fails, nothing was sent.
                    ExpectError.of(rank == 1 ? "iBcast on rank 1" : "refused call", r::waitFor);
                });
                ranks.check(
                        on(options) + "the next call goes through",
                        () -> Broadcasts.check(hb, world, Payload.Kind.ARRAY, ElementType.LONG, 9_999, size - 1, 11));
                ranks.check(on(options) + "past the outstanding limit", () -> {
                    List<BcastRequest> issued = new ArrayList<>();
                    byte[][] bufs = new byte[64][8];
                    for (byte[] b : bufs) {
                        issued.add(hb.iBcast(b, 8, MPI.BYTE, 0));
                    }
                    ExpectError.of("not yet seen complete", () -> hb.iBcast(new byte[8], 8, MPI.BYTE, 0));
                    for (BcastRequest r : issued) {
                        r.waitFor();
                    }
                });
            }
        }
    }

    /**
     * A root whose messages ride in the header and fill the board's payload ring before a reader has
     * read any: its later requests stay queued instead of waiting in {@code iBcast} for room, so the
     * root reaches its point-to-point send to that reader, which only then completes its requests.
     * (A root that waited for room there would wait for ever: the reader waits in a receive.)
     */
    @OnRanks(
            value = {"4"},
            env = CHUNK)
    void aRootWithoutRoomOnTheBoardGoesOn(Ranks ranks) throws Exception {
        onEachLayout(ranks, "four requests of 3 MiB before the reader reads", hb -> {
            Intracomm world = ranks.world();
            int rank = ranks.rank();
            int count = 3 << 20;
            int[] token = new int[1];
            List<Outstanding> calls = new ArrayList<>();
            if (rank == 0) {
                // The reader has issued its requests and waits in a receive from here.
                world.recv(token, 1, MPI.INT, 1, 77);
            }
            for (int i = 0; i < 4; i++) {
                Payload p = new Payload(Payload.Kind.BUFFER, ElementType.BYTE, count);
                if (rank == 0) {
                    p.fillPattern(count, 40 + i);
                } else {
                    p.fillStale();
                }
                calls.add(new Outstanding(hb.iBcast(p.container, count, MPI.BYTE, 0), p, count, 0, 40 + i));
            }
            if (rank == 1) {
                world.send(token, 1, MPI.INT, 0, 77);
                world.recv(token, 1, MPI.INT, 0, 78);
            } else if (rank == 0) {
                world.send(token, 1, MPI.INT, 1, 78);
            }
            for (Outstanding o : calls) {
                o.request().waitFor();
                o.check(rank == 0);
            }
        });
    }

    /** A root that calls late: the others' tests say "not yet" and they wait, with no invented failure. */
    @OnRanks(
            value = {"4", "bed 2x2"},
            env = CHUNK)
    void lateRootWaitedFor(Ranks ranks) throws Exception {
        onEachLayout(ranks, "root 2 two seconds late", hb -> {
            int count = 500_001;
            Payload p = new Payload(Payload.Kind.BUFFER, ElementType.BYTE, count);
            boolean isRoot = ranks.rank() == 2;
            if (isRoot) {
                p.fillPattern(count, 3);
                Thread.sleep(2000);
            } else {
                p.fillStale();
            }
            BcastRequest r = hb.iBcast(p.container, count, MPI.BYTE, 2);
            int notYet = 0;
            while (!r.test()) {
                notYet++;
                Thread.sleep(1);
            }
            if (!isRoot && notYet == 0) {
                throw new AssertionError("a test said done before the late root called");
            }
            String problem = p.verify(count, 3, isRoot);
            if (problem != null) {
                throw new AssertionError(problem);
            }
        });
    }
}
