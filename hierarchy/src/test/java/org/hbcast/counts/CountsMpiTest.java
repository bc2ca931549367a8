package org.hbcast.counts;

import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.Algorithm;
import org.hbcast.BcastOptions.IntraNode;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.mpi.port.MpiErrorClass;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.ExpectError;
import org.hbcast.support.Payload;
import org.hbcast.testing.OnRanks;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;

/**
 * Counts that differ across ranks (issue 24) on real launches: every plan delivers the root's bytes
 * and leaves the rest of larger buffers untouched; mismatches fail on every rank at once and the
 * next call works; communicators of one rank keep the data. Each rank checks every byte and plans
 * its cases; all must run all of them.
 */
class CountsMpiTest {
    private static final List<String> PLANS = List.of("auto", "native", "knomial", "ring", "fanout");

    /**
     * On every rank, for every plan of {@link #PLANS}: the names into fixed buffers, receivers
     * larger than the root, mismatches each followed by a good call; then communicators of one rank.
     * Each rank checks every byte it holds after every call, each call one case. Figures
     * {@code cases <plan>} (the cases of each plan) and {@code singles}.
     */
    @OnRanks(
            value = {"4", "2,2", "1,2", "3,1,2", "bed 2x2"},
            env = {"HBCAST_TIMEOUT_S=20", "HBCAST_TIMEOUT_FAILS=1"})
    void everyPlanDeliversTheRootsCount(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        for (String plan : PLANS) {
            int before = report.cases();
            try (HierarchicalBcast hb = HierarchicalBcast.create(world, options(plan))) {
                namesIntoFixedBuffers(hb, world, report);
                receiversLargerThanTheRoot(hb, world, report);
                mismatchesFailAndTheNextCallWorks(hb, world, report);
            }
            report.figure("cases " + plan, report.cases() - before);
        }
        int before = report.cases();
        communicatorsOfOne(world, report);
        report.figure("singles", report.cases() - before);
    }

    private static final int NAME_BUFFER = 256;

    private static BcastOptions options(String plan) {
        BcastOptions o = BcastOptions.defaults();
        return switch (plan) {
            case "auto" -> o;
            case "native" -> o.withAlgorithm(Algorithm.NATIVE);
            case "knomial" -> o.withAlgorithm(Algorithm.KNOMIAL);
            case "ring" -> o.withAlgorithm(Algorithm.HIERARCHICAL).withIntra(IntraNode.RING);
            case "fanout" -> o.withAlgorithm(Algorithm.HIERARCHICAL).withIntra(IntraNode.FANOUT);
            default -> throw new IllegalArgumentException("unknown plan " + plan);
        };
    }

    /** The reproduction, checked byte by byte, the untouched tail of every name buffer included. */
    private static void namesIntoFixedBuffers(HierarchicalBcast hb, Intracomm world, RankReport report)
            throws Exception {
        int rank = world.getRank();
        int reps = 5;
        int intCalls = 4;
        report.plan(reps * (1 + intCalls));
        for (int rep = 0; rep < reps; rep++) {
            int root = rep % world.getSize();
            int nameBytes = 13 + rep % 2;
            Payload.Kind kind = rep % 2 == 0 ? Payload.Kind.ARRAY : Payload.Kind.BUFFER;
            int count = rank == root ? nameBytes : NAME_BUFFER;
            long seed = 100 + rep;
            report.check(
                    "name " + rep + " of " + nameBytes + " bytes from root " + root,
                    () -> expectRootsCount(hb, world, kind, ElementType.BYTE, count, nameBytes, root, seed));
            for (int i = 0; i < intCalls; i++) {
                Broadcasts.check(report, hb, world, Payload.Kind.ARRAY, ElementType.INT, 4, root, 200 + 10 * rep + i);
            }
        }
    }

    private static void receiversLargerThanTheRoot(HierarchicalBcast hb, Intracomm world, RankReport report)
            throws Exception {
        // Around the header's payload: its first network message's 32 KiB (one byte more goes in two),
        // and 2 KiB, that edge until session 33.
        int[][] rootAndReceivers = {
            {100_003, (1 << 20) + 7},
            {1, 4096},
            {(3 << 20) + 5, 8 << 20},
            {64, 65},
            {0, 100},
            {2049, 40_000},
            {32_768, 32_769},
            {32_769, 65_536}
        };
        Payload.Kind[] wideKinds = {Payload.Kind.ARRAY, Payload.Kind.TYPED};
        report.plan(rootAndReceivers.length * Payload.Kind.values().length + wideKinds.length);
        int seed = 300;
        for (int[] c : rootAndReceivers) {
            for (Payload.Kind kind : Payload.Kind.values()) {
                int root = seed % world.getSize();
                int count = world.getRank() == root ? c[0] : c[1];
                int callSeed = seed++;
                report.check(
                        "call " + callSeed + ": root " + root + " sends " + c[0] + " bytes into " + c[1] + ", " + kind,
                        () -> expectRootsCount(hb, world, kind, ElementType.BYTE, count, c[0], root, callSeed));
            }
        }
        // Elements wider than a byte: doubles, as an array and a typed buffer.
        int root = world.getSize() - 1;
        for (Payload.Kind kind : wideKinds) {
            int count = world.getRank() == root ? 12_345 : 200_000;
            int callSeed = seed++;
            report.check(
                    "call " + callSeed + ": root " + root + " sends 12345 doubles into 200000, " + kind,
                    () -> expectRootsCount(hb, world, kind, ElementType.DOUBLE, count, 12_345, root, callSeed));
        }
    }

    /** One call in which this rank passes {@code count} and the root {@code rootCount}: the root's data, nothing past it. */
    private static void expectRootsCount(
            HierarchicalBcast hb,
            Intracomm world,
            Payload.Kind kind,
            ElementType type,
            int count,
            int rootCount,
            int root,
            long seed)
            throws Exception {
        Payload p = new Payload(kind, type, count);
        boolean isRoot = world.getRank() == root;
        if (isRoot) {
            p.fillPattern(count, seed);
        } else {
            p.fillStale();
        }
        hb.bcast(p.container, count, OpenMpi.datatype(type.basicType()), root);
        String problem = p.verify(rootCount, seed, isRoot);
        if (problem != null) {
            throw new AssertionError("call " + seed + " (root " + root + " passed " + rootCount + ", this rank " + count
                    + " " + type + "): " + problem);
        }
    }

    /**
     * A truncation, a root mismatch, a datatype mismatch and a null buffer, each followed by a good
     * call: eight cases. The root's header decides, so only the ranks that cannot take the root's
     * call fail (as with Open MPI).
     */
    private static void mismatchesFailAndTheNextCallWorks(HierarchicalBcast hb, Intracomm world, RankReport report)
            throws Exception {
        int rank = world.getRank();
        int last = world.getSize() - 1;
        // The last rank passes one byte fewer than root 0 sends.
        int count = rank == last ? 999 : 1000;
        String truncated = "message truncated: root 0 sends 1000 bytes (1000 of its 1-byte elements) but this rank's"
                + " count of 999 MPI.BYTE holds only 999 bytes";
        Ranks.checkAll(
                report,
                List.of(
                        Ranks.named(
                                "truncation on the last rank",
                                () -> outcome(hb, world, rank != last, truncated, count, 0, 0, 400)),
                        Broadcasts.call(hb, world, Payload.Kind.BUFFER, ElementType.BYTE, 1000, 0, 401),
                        Ranks.named("root mismatch", () -> rootMismatch(hb, world, 402)),
                        Broadcasts.call(hb, world, Payload.Kind.ARRAY, ElementType.LONG, 3000, last, 403),
                        Ranks.named("datatype mismatch on rank 1", () -> datatypeMismatch(hb, world)),
                        Broadcasts.call(hb, world, Payload.Kind.TYPED, ElementType.FLOAT, 77_777, 0, 404),
                        // The last rank passes a null buffer: it fails; the others get the data.
                        Ranks.named("null buffer on the last rank", () -> outcomeOrNull(hb, world, rank == last, 405)),
                        Broadcasts.call(hb, world, Payload.Kind.ARRAY, ElementType.SHORT, 5000, last, 406)));
    }

    /** Root 0 sends 3 ints (12 bytes); rank 1 takes longs and alone fails. */
    private static void datatypeMismatch(HierarchicalBcast hb, Intracomm world) throws Exception {
        int rank = world.getRank();
        String mismatch = "datatype mismatch: root 0 sends 12 bytes";
        try {
            if (rank == 1) {
                hb.bcast(new long[4], 4, MPI.LONG, 0);
            } else {
                int[] ints = {7, 8, 9};
                hb.bcast(ints, 3, MPI.INT, 0);
                if (ints[0] != 7 || ints[1] != 8 || ints[2] != 9) {
                    throw new AssertionError(
                            "wrong data beside a datatype mismatch: " + java.util.Arrays.toString(ints));
                }
            }
            if (rank == 1) {
                throw new AssertionError("expected an error containing '" + mismatch + "', but the call succeeded");
            }
        } catch (MPIException e) {
            if (rank != 1 || !e.getMessage().contains(mismatch)) {
                throw new AssertionError(
                        "expected " + (rank != 1 ? "the data" : mismatch) + ", got: " + e.getMessage(), e);
            }
            expectClass(e, MpiErrorClass.ERR_TYPE);
        }
    }

    /** The error class a program can act on: the standard's for the mismatch, not MPI_ERR_OTHER. */
    private static void expectClass(MPIException e, MpiErrorClass expected) {
        MpiErrorClass got = OpenMpi.errorClass(e);
        if (got != expected) {
            throw new AssertionError(
                    "error class " + got.mpiName() + ", expected " + expected.mpiName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * On one node (virtual nodes of one host included: they share its board), rank 0 names itself
     * the root and every other rank names the last rank: the first claim wins and the others fail. Across nodes (where two self-named roots would each send), the
     * first rank of the last node names another root than root 0: it alone fails, after relaying.
     */
    private static void rootMismatch(HierarchicalBcast hb, Intracomm world, long seed) throws Exception {
        int rank = world.getRank();
        int last = world.getSize() - 1;
        NodeLayoutView nodes = new NodeLayoutView(hb);
        int myRoot;
        int odd = -1;
        if (nodes.count() == 1) {
            myRoot = rank == 0 ? 0 : last;
        } else {
            odd = nodes.firstOfLastNode();
            myRoot = rank != odd ? 0 : odd == last ? 1 : last;
        }
        int[] codes = {
            outcome(
                    hb,
                    world,
                    odd < 0 ? null : rank != odd,
                    "ranks disagree on the root",
                    16,
                    myRoot,
                    odd < 0 ? myRoot : 0,
                    seed)
        };
        int[] all = new int[world.getSize()];
        world.allGather(codes, 1, MPI.INT, all, 1, MPI.INT);
        long failed = java.util.Arrays.stream(all).filter(c -> c < 0).count();
        if (odd >= 0 ? failed != 1 : failed == 0 || failed == all.length) {
            throw new AssertionError("root mismatch: ranks failed " + java.util.Arrays.toString(all));
        }
    }

    /**
     * The nodes the call headers see, as the test needs them: the real ones, since virtual nodes of
     * one host share its board (a root mismatch there plays out as on one node).
     */
    private record NodeLayoutView(int count, int firstOfLastNode) {
        NodeLayoutView(HierarchicalBcast hb) {
            this(
                    hb.topology().hostNodes().size(),
                    hb.topology()
                            .hostNodes()
                            .get(hb.topology().hostNodes().size() - 1)
                            .get(0));
        }
    }

    /** A call of 4000 bytes from root 0 in which {@code nullBuffer} ranks pass a null buffer. */
    private static void outcomeOrNull(HierarchicalBcast hb, Intracomm world, boolean nullBuffer, long seed)
            throws Exception {
        if (nullBuffer) {
            ExpectError.of("buffer is null", () -> hb.bcast((Object) null, 4000, MPI.BYTE, 0));
        } else {
            outcome(hb, world, true, "", 4000, 0, 0, seed);
        }
    }

    /**
     * One byte call that may fail: {@code succeeds} true expects the root's pattern, false the error
     * {@code fragment}, null either. Returns 1 + the root on success, -1 on the expected error.
     */
    private static int outcome(
            HierarchicalBcast hb,
            Intracomm world,
            Boolean succeeds,
            String fragment,
            int count,
            int myRoot,
            int patternRoot,
            long seed)
            throws Exception {
        Payload p = new Payload(Payload.Kind.BUFFER, ElementType.BYTE, count);
        if (world.getRank() == myRoot) {
            p.fillPattern(count, seed);
        } else {
            p.fillStale();
        }
        try {
            hb.bcast(p.container, count, MPI.BYTE, myRoot);
        } catch (MPIException e) {
            if (Boolean.TRUE.equals(succeeds) || !e.getMessage().contains(fragment)) {
                throw new AssertionError(
                        "expected " + (Boolean.TRUE.equals(succeeds) ? "the data" : fragment) + ", got: "
                                + e.getMessage(),
                        e);
            }
            expectClass(
                    e, fragment.startsWith("message truncated") ? MpiErrorClass.ERR_TRUNCATE : MpiErrorClass.ERR_ROOT);
            return -1;
        }
        if (Boolean.FALSE.equals(succeeds)) {
            throw new AssertionError("expected an error containing '" + fragment + "', but the call succeeded");
        }
        String problem = p.verify(count, seed, world.getRank() == myRoot);
        if (problem != null) {
            throw new AssertionError("call " + seed + ": " + problem);
        }
        return 1 + patternRoot;
    }

    /** Broadcasts on communicators of one rank: the data stays as it is, nothing waits. */
    private static void communicatorsOfOne(Intracomm world, RankReport report) throws Exception {
        Intracomm alone = world.split(world.getRank(), 0);
        try {
            for (Intracomm comm : new Intracomm[] {MPI.COMM_SELF, alone}) {
                String name = comm == alone ? "a split of one rank" : "COMM_SELF";
                try (HierarchicalBcast hb = HierarchicalBcast.create(comm)) {
                    int[] counts = {0, 1, 5000, 3 << 20};
                    // Each count of each container, and the refused root.
                    report.plan(Payload.Kind.values().length * counts.length + 1);
                    for (Payload.Kind kind : Payload.Kind.values()) {
                        for (int count : counts) {
                            report.check(
                                    name + ": " + count + " x SHORT " + kind,
                                    () -> Broadcasts.check(hb, comm, kind, ElementType.SHORT, count, 0, 500 + count));
                        }
                    }
                    report.check(
                            name + ": root 1 refused",
                            () -> ExpectError.of(
                                    "root 1 is out of range: the communicator has ranks 0..0",
                                    () -> hb.bcast(new byte[8], 8, MPI.BYTE, 1)));
                }
            }
        } finally {
            alone.free();
        }
    }
}
