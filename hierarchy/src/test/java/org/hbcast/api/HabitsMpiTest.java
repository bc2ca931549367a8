package org.hbcast.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import mpi.Datatype;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.BcastOptions;
import org.hbcast.BcastOptions.CountRule;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.mpi.openmpi.OpenMpi;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.ExpectError;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.OnRanks;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/** What real programs do besides plain broadcasts (issue 24), on real launches, each rank checking data and errors. */
class HabitsMpiTest {

    /**
     * Communicators of the churn: 600 since session 46. A warm create on one node x 4 takes 75-110 ms
     * here, 50-80 of them the first touch of its fresh shared mappings (about 7 us a page on this VM,
     * even after {@code MAP_POPULATE}), and 1000 took 84 s of the suite's 20 minutes. A leak of a
     * descriptor or a segment shows after any count, and of the heap ({@link #HEAP_GROWTH}) at 16 KiB
     * an instance (540 counted past the first 60); the heap after GC moved by at most 1 MiB in CI.
     */
    private static final int LOOPS = 600;
    /** Most growth of the heap after GC over the counted communicators. */
    private static final long HEAP_GROWTH = 8 << 20;

    @Test
    void sixHundredCommunicatorsCreatedAndFreedLeakNothing() {
        // A broadcast on each communicator, and four resources that must not grow.
        MpiOutcome out = MpiLaunch.body(HabitsMpiTest::churn)
                .layout("4")
                .args("loops=" + LOOPS)
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < out.ranks(); r++) {
            assertEquals(LOOPS, out.longFigure(r, "communicators"), out.describe("rank " + r));
            assertEquals(0, out.longFigure(r, "segments"), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
        System.out.println("churn: " + out.results().values());
    }

    /** 200 communicators (400 before session 46, 34 s of the suite): the one-node churn above measures the heap finely. */
    @OnRanks(value = "2,3", args = "loops=200")
    void communicatorsCreatedAndFreedOnVirtualNodesLeakNothing(Ranks ranks) throws Exception {
        churn(ranks);
    }

    /** MPI initialised with {@code THREAD_MULTIPLE}; two threads broadcast on two communicators at once, every call checked. */
    @OnRanks(value = "2,2", threads = Ranks.Threads.MULTIPLE)
    void twoThreadsBroadcastOnTwoCommunicatorsAtOnceUnderThreadMultiple(Ranks ranks) throws Exception {
        threads(ranks.world(), ranks.report());
    }

    /**
     * MPI initialised with {@code THREAD_SERIALIZED}; while one thread is in a call, a second thread's
     * call on another communicator is refused with a message naming the thread level, and both
     * communicators work afterwards.
     */
    @Test
    void aSecondThreadIsRefusedWithoutThreadMultiple() {
        // Rank 0 sees the refusal; every rank then checks a call on each communicator.
        MpiOutcome out = MpiLaunch.body(HabitsMpiTest::serialized)
                .layout("3")
                .threads(Ranks.Threads.SERIALIZED)
                .run()
                .assertAllRanksOk();
        assertTrue(
                out.note(0, REFUSED).contains("but MPI provides thread level THREAD_SERIALIZED"),
                out.describe("rank 0"));
    }

    /** Derived and struct datatypes are refused before anything is sent; ranks with different {@code HBCAST_COUNTS} at create. */
    @Test
    void derivedAndStructDatatypesAreRefusedWithAMessage() {
        // Four datatypes refused, the valid call after them, differing HBCAST_COUNTS refused.
        MpiOutcome out =
                MpiLaunch.body(HabitsMpiTest::types).layout("2,2").run().assertAllRanksOk();
        for (int r = 0; r < out.ranks(); r++) {
            assertTrue(
                    out.note(r, "vector datatype").contains("derived datatype of size 4, extent 7"),
                    out.describe("rank " + r));
            assertTrue(
                    out.note(r, "HBCAST_COUNTS differ").contains("ranks disagree on HBCAST_COUNTS"),
                    out.describe("rank " + r));
        }
    }

    /**
     * {@code loops} communicators created and freed one after another, each with its own
     * {@link HierarchicalBcast} and a checked broadcast; the rank's open descriptors, its heap after a
     * GC, its direct and mapped buffers and hbcast's segments in /dev/shm must not grow.
     */
    static void churn(Ranks ranks) throws Exception {
        churn(ranks.world(), ranks.intArg("loops", LOOPS), ranks.report());
    }

    static void serialized(Ranks ranks) throws Exception {
        serialized(ranks.world(), ranks.report());
    }

    static void types(Ranks ranks) throws Exception {
        types(ranks.world(), ranks.report());
    }

    /** The case and note of {@link #aSecondThreadIsRefusedWithoutThreadMultiple} on rank 0: the second thread's call refused. */
    static final String REFUSED = "a second thread's call refused";

    /**
     * A case per communicator's broadcast and per resource that must not grow; the resources as
     * figures ({@code fds before}, {@code fds after}, ...).
     */
    private static String churn(Intracomm world, int loops, RankReport report) throws Exception {
        report.plan(loops);
        int warm = Math.min(100, loops / 10);
        long fds0 = 0;
        long heap0 = 0;
        long offHeap0 = 0;
        // Segments of other jobs on this machine (a test directory, another user's run) are theirs.
        java.util.Set<Path> before = hbcastSegments();
        for (int i = 0; i < loops; i++) {
            if (i == warm) {
                fds0 = openDescriptors();
                heap0 = heapAfterGc();
                offHeap0 = directAndMapped();
            }
            // Alternate the two ways programs make communicators: a split and a dup.
            Intracomm comm = i % 2 == 0 ? world.split(world.getRank() % 2, world.getRank()) : world.dup();
            try (HierarchicalBcast hb = HierarchicalBcast.create(comm)) {
                Broadcasts.check(
                        report,
                        hb,
                        comm,
                        Payload.Kind.BUFFER,
                        ElementType.INT,
                        100 + i % 5000,
                        i % comm.getSize(),
                        1000 + i);
            }
            comm.free();
        }
        world.barrier();
        long fds = openDescriptors();
        long heap = heapAfterGc();
        long offHeap = directAndMapped();
        java.util.Set<Path> left = hbcastSegments();
        left.removeAll(before);
        long segments = left.size();
        long fdsBefore = fds0;
        long heapBefore = heap0;
        long offHeapBefore = offHeap0;
        report.figure("communicators", loops)
                .figure("fds before", fds0)
                .figure("fds after", fds)
                .figure("heapMiB before", heap0 >> 20)
                .figure("heapMiB after", heap >> 20)
                .figure("offHeapMiB before", offHeap0 >> 20)
                .figure("offHeapMiB after", offHeap >> 20)
                .figure("segments", segments);
        Ranks.checkAll(
                report,
                List.of(
                        Ranks.named("open descriptors do not grow", () -> {
                            if (fds > fdsBefore + 2) {
                                throw new AssertionError("open descriptors grew from " + fdsBefore + " to " + fds
                                        + " over " + (loops - warm) + " communicators");
                            }
                        }),
                        Ranks.named("the heap does not grow", () -> {
                            if (heap > heapBefore + HEAP_GROWTH) {
                                throw new AssertionError("heap after GC grew from " + heapBefore + " to " + heap
                                        + " bytes over " + (loops - warm) + " communicators");
                            }
                        }),
                        Ranks.named("direct and mapped buffers do not grow", () -> {
                            if (offHeap > offHeapBefore + (16 << 20)) {
                                throw new AssertionError("direct and mapped buffers grew from " + offHeapBefore + " to "
                                        + offHeap + " bytes over " + (loops - warm) + " communicators");
                            }
                        }),
                        Ranks.named("no segment left in /dev/shm", () -> {
                            if (segments != 0) {
                                throw new AssertionError(segments + " hbcast segments left in /dev/shm after " + loops
                                        + " communicators: " + left);
                            }
                        })));
        return "communicators=" + loops + " fds " + fds0 + "->" + fds + " heapMiB " + (heap0 >> 20) + "->"
                + (heap >> 20) + " offHeapMiB " + (offHeap0 >> 20) + "->" + (offHeap >> 20);
    }

    private static long openDescriptors() throws IOException {
        // The fewest of three reads: a descriptor Open MPI or the JVM holds for a moment is no leak.
        long fewest = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
                fewest = Math.min(fewest, fds.count());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return fewest;
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Bytes of the JVM's direct and mapped buffer pools (after {@link #heapAfterGc()} has collected). */
    private static long directAndMapped() {
        return ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class).stream()
                .mapToLong(BufferPoolMXBean::getMemoryUsed)
                .sum();
    }

    /** The hbcast segments in /dev/shm now: files, not the directories of in-process tests. */
    private static java.util.Set<Path> hbcastSegments() throws IOException {
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.filter(f -> f.getFileName().toString().startsWith("hbcast") && Files.isRegularFile(f))
                    .collect(java.util.stream.Collectors.toCollection(java.util.HashSet::new));
        }
    }

    private static String threads(Intracomm world, RankReport report) throws Exception {
        if (MPI.queryThread() != MPI.THREAD_MULTIPLE) {
            throw new AssertionError("Open MPI here provides thread level "
                    + OpenMpi.library().threadLevel().threadName() + ", not THREAD_MULTIPLE");
        }
        Intracomm a = world.dup();
        Intracomm b = world.dup();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        int calls = 150;
        Intracomm[] comms = {a, b};
        report.plan(comms.length * calls);
        try (HierarchicalBcast ha = HierarchicalBcast.create(a);
                HierarchicalBcast hbB = HierarchicalBcast.create(b)) {
            Thread other = new Thread(() -> {
                try {
                    for (int i = 0; i < calls; i++) {
                        Broadcasts.check(
                                report,
                                hbB,
                                b,
                                Payload.Kind.ARRAY,
                                ElementType.DOUBLE,
                                1 + i * 331,
                                (i + 1) % b.getSize(),
                                5000 + i);
                    }
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            other.start();
            for (int i = 0; i < calls; i++) {
                Broadcasts.check(
                        report, ha, a, Payload.Kind.BUFFER, ElementType.BYTE, 1 + i * 977, i % a.getSize(), 6000 + i);
            }
            other.join();
        } finally {
            a.free();
            b.free();
        }
        if (failure.get() != null) {
            throw new AssertionError("the second thread failed: " + failure.get(), failure.get());
        }
        return "threads=2 calls=" + 2 * calls;
    }

    /** Rank 0's refusal is a case (note {@value #REFUSED}); then two checked broadcasts on every rank. */
    private static String serialized(Intracomm world, RankReport report) throws Exception {
        int provided = MPI.queryThread();
        if (provided == MPI.THREAD_MULTIPLE) {
            throw new AssertionError("asked for THREAD_SERIALIZED and got THREAD_MULTIPLE: nothing to refuse");
        }
        Intracomm a = world.dup();
        Intracomm b = world.dup();
        String refused;
        try (HierarchicalBcast ha = HierarchicalBcast.create(a);
                HierarchicalBcast hbB = HierarchicalBcast.create(b)) {
            int rank = world.getRank();
            ByteBuffer data = ByteBuffer.allocateDirect(64);
            AtomicReference<String> seen = new AtomicReference<>("nothing");
            CountDownLatch inCall = new CountDownLatch(1);
            if (rank == 0) {
                // Rank 0 waits in a call on a whose root (rank 1) comes only later; meanwhile a second thread tries b.
                Thread second = new Thread(() -> {
                    try {
                        inCall.await();
                        Thread.sleep(300);
                        hbB.bcast(data, 64, MPI.BYTE, 0);
                        seen.set("the call on b was not refused");
                    } catch (MPIException e) {
                        seen.set(e.getMessage());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                second.start();
                inCall.countDown();
                ha.bcast(data, 64, MPI.BYTE, 1);
                second.join();
                String want = "another thread is in a broadcast on another communicator, but MPI provides thread level "
                        + OpenMpi.library().threadLevel().threadName() + "; concurrent calls need MPI.InitThread(args,"
                        + " MPI.THREAD_MULTIPLE)";
                Ranks.checkAll(report, List.of(Ranks.named(REFUSED, () -> {
                    if (!seen.get().contains(want)) {
                        throw new AssertionError("expected '" + want + "', got: " + seen.get());
                    }
                })));
                report.note(REFUSED, seen.get());
            } else {
                Thread.sleep(1500);
                ha.bcast(data, 64, MPI.BYTE, 1);
            }
            refused = seen.get();
            // Both communicators work afterwards, one call at a time.
            Ranks.checkAll(
                    report,
                    List.of(
                            Ranks.named(
                                    "a call on a",
                                    () -> Broadcasts.check(
                                            ha,
                                            a,
                                            Payload.Kind.ARRAY,
                                            ElementType.LONG,
                                            10_000,
                                            1 % a.getSize(),
                                            7000)),
                            Ranks.named(
                                    "a call on b",
                                    () -> Broadcasts.check(
                                            hbB, b, Payload.Kind.ARRAY, ElementType.LONG, 10_000, 0, 7001))));
        } finally {
            a.free();
            b.free();
        }
        return world.getRank() == 0 ? "refused: " + refused : "joined";
    }

    private static String types(Intracomm world, RankReport report) throws Exception {
        Datatype vector = Datatype.createVector(4, 1, 2, MPI.INT);
        vector.commit();
        Datatype struct =
                Datatype.createStruct(new int[] {1, 1}, new int[] {0, 8}, new Datatype[] {MPI.INT, MPI.DOUBLE});
        struct.commit();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            Ranks.checkAll(
                    report,
                    List.of(
                            ExpectError.named(
                                    report,
                                    "vector datatype",
                                    "datatype (a derived datatype of size 4, extent 7) is not supported by hbcast",
                                    () -> hb.bcast(new int[64], 2, vector, 0)),
                            ExpectError.named(
                                    report,
                                    "struct datatype",
                                    "datatype (a derived datatype of size",
                                    () -> hb.bcast(ByteBuffer.allocateDirect(64), 2, struct, 0)),
                            ExpectError.named(
                                    report,
                                    "MPI.INT2",
                                    "datatype MPI.INT2 is not supported by hbcast",
                                    () -> hb.bcast(new int[64], 8, MPI.INT2, 0)),
                            // Named without asking Open MPI, which aborts the job on a name asked of DATATYPE_NULL.
                            ExpectError.named(
                                    report,
                                    "MPI.DATATYPE_NULL",
                                    "datatype MPI.DATATYPE_NULL is not supported by hbcast",
                                    () -> hb.bcast(new int[64], 8, MPI.DATATYPE_NULL, 0)),
                            // Nothing was sent: a valid call right after still delivers exactly the root's data.
                            Ranks.named(
                                    "call 8000",
                                    () -> Broadcasts.check(
                                            hb, world, Payload.Kind.ARRAY, ElementType.INT, 1000, 0, 8000)),
                            // Ranks whose HBCAST_COUNTS differ are refused at create, on every rank, instead of hanging
                            // later.
                            ExpectError.named(
                                    report,
                                    "HBCAST_COUNTS differ",
                                    "ranks disagree on HBCAST_COUNTS",
                                    () -> HierarchicalBcast.create(
                                            world,
                                            BcastOptions.defaults()
                                                    .withCounts(
                                                            world.getRank() == 0
                                                                    ? CountRule.TRUSTED
                                                                    : CountRule.ROOT)))));
        } finally {
            vector.free();
            struct.free();
        }
        return "refused the datatypes and the differing counts";
    }
}
