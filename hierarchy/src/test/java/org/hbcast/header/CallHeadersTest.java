package org.hbcast.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.hbcast.call.ElementType;
import org.hbcast.call.Message;
import org.hbcast.stage.ProgressWait;
import org.hbcast.stage.WaitLimit;
import org.hbcast.transport.shm.CallBoard;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The header exchange of a node of four ranks, played by four threads on a real board: what each
 * rank is told to do for the counts, roots and argument errors it brings.
 */
class CallHeadersTest {
    private static final int RANKS = 4;
    private Path dir;
    private final List<CallBoard> boards = new ArrayList<>();
    private final List<CallHeaders> headers = new ArrayList<>();
    private final ExecutorService pool = Executors.newFixedThreadPool(RANKS);

    /** One rank's arguments: its argument error (or null), root, bytes and type. */
    private record Args(String refused, int root, long bytes, ElementType type) {
        static Args of(int root, long bytes) {
            return new Args(null, root, bytes, ElementType.INT);
        }
    }

    /** What one rank was told. */
    private record Told(CallHeaders.Outcome outcome, long rootBytes, int root, String problem) {}

    @BeforeEach
    void createBoard() throws IOException {
        dir = Files.isDirectory(Path.of("/dev/shm"))
                ? Files.createTempDirectory(Path.of("/dev/shm"), "hbcast-test-")
                : Files.createTempDirectory("hbcast-test-");
        boards.add(CallBoard.create(dir, 0, RANKS));
        for (int p = 1; p < RANKS; p++) {
            boards.add(CallBoard.open(boards.get(0).path(), p, RANKS));
        }
        for (int p = 0; p < RANKS; p++) {
            headers.add(new CallHeaders(
                    boards.get(p),
                    null,
                    null,
                    null,
                    p,
                    0,
                    p,
                    CallHeaders.inlineBytes(true),
                    ProgressWait.backingOff(TimeUnit.MILLISECONDS.toNanos(300))));
        }
    }

    @AfterEach
    void closeBoard() throws Exception {
        pool.shutdownNow();
        for (CallBoard b : boards) {
            b.close();
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.delete(f);
            }
        }
        Files.delete(dir);
    }

    private List<Told> call(Args... args) throws Exception {
        List<Future<Told>> futures = new ArrayList<>();
        for (int p = 0; p < RANKS; p++) {
            CallHeaders h = headers.get(p);
            Args a = args[p];
            Callable<Told> rank = () -> {
                CallHeaders.Outcome o = h.exchange(
                        a.refused(), a.root(), a.root() >= 0 && a.root() < RANKS, a.bytes(), a.type(), null, true);
                return new Told(o, h.rootBytes(), h.root(), h.problem());
            };
            futures.add(pool.submit(rank));
        }
        List<Told> told = new ArrayList<>();
        for (Future<Told> f : futures) {
            told.add(f.get(10, TimeUnit.SECONDS));
        }
        return told;
    }

    /**
     * Virtual nodes on several real hosts keep the network's capacity whatever their one-host
     * selector wishes; one host (virtual or not) and real nodes keep the selector's.
     */
    @Test
    void virtualNodesOnSeveralHostsKeepTheNetworksCapacity() {
        long[] wishes = {
            CallHeaders.NO_INLINE,
            0,
            HeaderRelay.FIRST_PAYLOAD,
            CallHeaders.NETWORK_INLINE_BYTES,
            CallHeaders.NETWORK_INLINE_BYTES + 1L,
            512 << 10,
            2 << 20,
            CallBoard.INLINE_BYTES
        };
        for (long wished : wishes) {
            for (boolean severalHosts : new boolean[] {false, true}) {
                for (boolean virtualNodes : new boolean[] {false, true}) {
                    long want = severalHosts && virtualNodes && wished > CallHeaders.NETWORK_INLINE_BYTES
                            ? CallHeaders.NETWORK_INLINE_BYTES
                            : wished;
                    assertEquals(
                            want,
                            CallHeaders.layoutCapacity(wished, severalHosts, virtualNodes),
                            wished + " B, several hosts " + severalHosts + ", virtual " + virtualNodes);
                }
            }
        }
    }

    @Test
    void receiversRunTheRootsCallWhateverTheyPassedAndOnlyTheTruncatedOneDropsIt() throws Exception {
        List<Told> told = call(Args.of(2, 400), Args.of(2, 400), Args.of(2, 400), Args.of(2, 400));
        assertEquals(CallHeaders.Outcome.ROOT, told.get(2).outcome());
        for (int p : new int[] {0, 1, 3}) {
            assertEquals(new Told(CallHeaders.Outcome.RECEIVE, 400, 2, null), told.get(p));
        }
        told = call(Args.of(0, 56), Args.of(0, 256), Args.of(0, 40), Args.of(0, 1 << 20));
        assertEquals(new Told(CallHeaders.Outcome.RECEIVE, 56, 0, null), told.get(1));
        assertEquals(new Told(CallHeaders.Outcome.RECEIVE, 56, 0, null), told.get(3));
        assertEquals(CallHeaders.Outcome.SCRATCH, told.get(2).outcome());
        assertEquals(56, told.get(2).rootBytes());
        assertTrue(
                told.get(2)
                        .problem()
                        .contains("message truncated: root 0 sends 56 bytes (14 of its 4-byte elements)"
                                + " but this rank's count of 10 MPI.INT holds only 40 bytes"),
                told.get(2).problem());
        // A datatype that does not divide the root's bytes.
        told = call(Args.of(1, 12), Args.of(1, 12), new Args(null, 1, 16, ElementType.LONG), Args.of(1, 12));
        assertEquals(CallHeaders.Outcome.SCRATCH, told.get(2).outcome());
        assertTrue(
                told.get(2).problem().contains("datatype mismatch: root 1 sends 12 bytes"),
                told.get(2).problem());
        assertEquals(CallHeaders.Outcome.RECEIVE, told.get(3).outcome());
    }

    @Test
    void twoRanksThatBothClaimTheRootCannotBothSend() throws Exception {
        for (int i = 0; i < 50; i++) {
            List<Told> told = call(Args.of(0, 8), Args.of(3, 8), Args.of(3, 8), Args.of(3, 8));
            int winner = told.get(0).outcome() == CallHeaders.Outcome.ROOT ? 0 : 3;
            assertEquals(CallHeaders.Outcome.ROOT, told.get(winner).outcome(), told.toString());
            for (int p = 0; p < RANKS; p++) {
                Told t = told.get(p);
                assertEquals(winner, t.root(), told.toString());
                boolean agrees = (p == 0 ? 0 : 3) == winner;
                if (p != winner) {
                    assertEquals(
                            agrees ? CallHeaders.Outcome.RECEIVE : CallHeaders.Outcome.SCRATCH,
                            t.outcome(),
                            told.toString());
                }
                if (!agrees) {
                    assertTrue(t.problem().contains("ranks disagree on the root: root " + winner), t.problem());
                }
            }
        }
    }

    @Test
    void aRootThatRefusesItsArgumentsStopsEveryRankAtOnceAndTheNextCallWorks() throws Exception {
        List<Told> told = call(Args.of(1, 8), new Args("buffer is null", 1, 0, null), Args.of(1, 8), Args.of(1, 8));
        for (int p = 0; p < RANKS; p++) {
            assertEquals(CallHeaders.Outcome.REFUSED, told.get(p).outcome());
        }
        assertEquals("buffer is null", told.get(1).problem());
        assertTrue(
                told.get(0).problem().contains("rank 1 refused call 1 (a bad argument there"),
                told.get(0).problem());
        told = call(Args.of(1, 8), Args.of(1, 8), Args.of(1, 8), Args.of(1, 8));
        assertEquals(CallHeaders.Outcome.ROOT, told.get(1).outcome());
        assertEquals(CallHeaders.Outcome.RECEIVE, told.get(0).outcome());
    }

    @Test
    void aRootOutOfRangeEverywhereFailsAtOnceAndOnOneRankOnlyThatRankFails() throws Exception {
        String bad = "root 9 is out of range";
        List<Told> told = call(
                new Args(bad, 9, 0, null),
                new Args(bad, 9, 0, null),
                new Args(bad, 9, 0, null),
                new Args(bad, 9, 0, null));
        for (Told t : told) {
            assertEquals(CallHeaders.Outcome.REFUSED, t.outcome());
        }
        // Rank 2 alone passed a root out of range: it refuses the call if it claims first, else drops the data.
        told = call(Args.of(0, 80), Args.of(0, 80), new Args(bad, 9, 0, null), Args.of(0, 80));
        if (told.get(0).outcome() == CallHeaders.Outcome.ROOT) {
            assertEquals(CallHeaders.Outcome.SCRATCH, told.get(2).outcome());
            assertEquals(bad, told.get(2).problem());
            assertEquals(CallHeaders.Outcome.RECEIVE, told.get(1).outcome());
        } else {
            for (Told t : told) {
                assertEquals(CallHeaders.Outcome.REFUSED, t.outcome(), told.toString());
            }
        }
        told = call(Args.of(3, 8), Args.of(3, 8), Args.of(3, 8), Args.of(3, 8));
        assertEquals(CallHeaders.Outcome.ROOT, told.get(3).outcome());
    }

    @Test
    void ranksThatNameARootWhichNamesAnotherFailAtOnceNotAfterTheTimeout() throws Exception {
        // Rank 1 names root 0 and every other rank names root 1: nobody names itself, nobody would post.
        long start = System.nanoTime();
        List<Told> told = call(Args.of(1, 8), Args.of(0, 8), Args.of(1, 8), Args.of(1, 8));
        assertTrue(System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(250), "waited for the timeout");
        for (Told t : told) {
            assertEquals(CallHeaders.Outcome.REFUSED, t.outcome(), told.toString());
            assertTrue(t.problem().contains("ranks disagree on the root: in call 1 rank"), t.problem());
        }
        told = call(Args.of(2, 8), Args.of(2, 8), Args.of(2, 8), Args.of(2, 8));
        assertEquals(CallHeaders.Outcome.ROOT, told.get(2).outcome());
    }

    @Test
    void aRootThatNeverComesTimesOutNamingIt() throws Exception {
        List<Future<Told>> futures = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            CallHeaders h = headers.get(p);
            futures.add(pool.submit(
                    () -> new Told(h.exchange(null, 3, true, 8, ElementType.BYTE, null, true), 0, 0, h.problem())));
        }
        for (Future<Told> f : futures) {
            Told t = f.get(10, TimeUnit.SECONDS);
            assertEquals(CallHeaders.Outcome.TIMED_OUT, t.outcome());
            assertTrue(
                    t.problem().contains("timed out after 0.3 s waiting for the call's header from root 3"),
                    t.problem());
        }
    }

    @Test
    void aLateRootIsWaitedForAndReportedWhereTheLimitWaitsOn() throws Exception {
        long period = TimeUnit.MILLISECONDS.toNanos(150);
        List<String> reports = Collections.synchronizedList(new ArrayList<>());
        List<Future<Told>> futures = new ArrayList<>();
        for (int p = 0; p < RANKS; p++) {
            WaitLimit limit = WaitLimit.reportingTo(period, "rank " + p, reports::add);
            limit.call(1);
            CallHeaders h = new CallHeaders(boards.get(p), p, ProgressWait.backingOff(limit));
            long late = p == 3 ? 4 * period : 0;
            futures.add(pool.submit(() -> {
                TimeUnit.NANOSECONDS.sleep(late);
                return new Told(
                        h.exchange(null, 3, true, 8, ElementType.BYTE, null, false),
                        h.rootBytes(),
                        h.root(),
                        h.problem());
            }));
        }
        for (int p = 0; p < RANKS; p++) {
            Told t = futures.get(p).get(10, TimeUnit.SECONDS);
            assertEquals(p == 3 ? CallHeaders.Outcome.ROOT : CallHeaders.Outcome.RECEIVE, t.outcome(), t.toString());
            assertEquals(8, t.rootBytes());
        }
        for (int p = 0; p < 3; p++) {
            String mine = "rank " + p + ": call 1 still waiting after ";
            long lines = reports.stream().filter(r -> r.startsWith(mine)).count();
            assertTrue(lines >= 1 && lines <= 4, reports.toString());
        }
        assertTrue(
                reports.stream().allMatch(r -> r.contains(" s for the call's header from root 3: the root has not")),
                reports.toString());
        assertTrue(reports.stream().noneMatch(r -> r.startsWith("rank 3")), reports.toString());
    }

    @Test
    void aSmallMessageRidesInItsHeaderAndALargerReceiverKeepsItsTail() throws Exception {
        int[][] arrays = {new int[10], new int[64], new int[64], new int[10]};
        for (int call = 1; call <= 3 * CallBoard.ENTRIES; call++) {
            List<Future<Boolean>> futures = new ArrayList<>();
            for (int p = 0; p < RANKS; p++) {
                int[] a = arrays[p];
                java.util.Arrays.fill(a, p == 1 ? call : -1);
                CallHeaders h = headers.get(p);
                int count = p == 1 ? 10 : a.length;
                futures.add(pool.submit(() -> {
                    Message m = new Message().bind(a, Math.min(count, a.length), ElementType.INT, 1, 0, RANKS, null);
                    CallHeaders.Outcome o = h.exchange(null, 1, true, m.bytes(), ElementType.INT, m, true);
                    return (o == CallHeaders.Outcome.ROOT || o == CallHeaders.Outcome.RECEIVE)
                            && h.inlined()
                            && h.rootBytes() == 40;
                }));
            }
            for (Future<Boolean> f : futures) {
                assertTrue(f.get(10, TimeUnit.SECONDS), "call " + call);
            }
            for (int p = 0; p < RANKS; p++) {
                for (int i = 0; i < arrays[p].length; i++) {
                    assertEquals(
                            i < 10 || p == 1 ? call : -1,
                            arrays[p][i],
                            "rank " + p + " element " + i + " call " + call);
                }
            }
        }
        // Beyond the payload's room the header goes alone and the plan moves the data.
        ByteBuffer big = ByteBuffer.allocateDirect(CallBoard.INLINE_BYTES + 8);
        List<Future<Boolean>> futures = new ArrayList<>();
        for (int p = 0; p < RANKS; p++) {
            CallHeaders h = headers.get(p);
            futures.add(pool.submit(() -> {
                Message m = new Message().bind(big, big.capacity(), ElementType.BYTE, 0, 0, RANKS, null);
                h.exchange(null, 0, true, m.bytes(), ElementType.BYTE, m, true);
                return !h.inlined() && h.rootBytes() == big.capacity();
            }));
        }
        for (Future<Boolean> f : futures) {
            assertTrue(f.get(10, TimeUnit.SECONDS));
        }
    }
}
