package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.call.ElementType;
import org.hbcast.select.TrialSchedule;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.LearntFiles;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/** {@code auto}'s in-run selection on real launches (see {@link #decide}): data right while trying, verdicts alike, kept. */
class TrialsMpiTest {

    private static final int[] SIZES = {3000, 40_000, 5_000_000};

    /**
     * Every rank ran every case of {@link #decide} and decided every size alike.
     *
     * @param kept whether the verdicts were to be kept (default options): then rank 0 checks the
     *             file and every rank a new instance on each size, else every rank that nothing was kept
     */
    private static void assertDecidedAlike(MpiOutcome out, int ranks, boolean headerOption, boolean kept) {
        out.assertAllRanksOk();
        for (int bytes : SIZES) {
            String first = out.note(0, "decided " + bytes);
            for (int r = 1; r < ranks; r++) {
                assertEquals(first, out.note(r, "decided " + bytes), out.describe("rank " + r + ", " + bytes + " B"));
            }
            if (!headerOption) {
                assertTrue(!first.contains("inline"), out.describe("no header, no inline option"));
            }
        }
        System.out.println(out.result(0).notes());
    }

    /** On one host the header carries what it can untried: only the size past it is tried. */
    @Test
    void oneNodeOfFour() {
        assertDecidedAlike(
                MpiLaunch.body(TrialsMpiTest::decide)
                        .layout("4")
                        .args("untried=3000,40000")
                        .run(),
                4,
                true,
                true);
    }

    /** Virtual nodes of one host try nothing: the header carries what it can, Open MPI's bcast the rest. */
    @Test
    void unevenVirtualNodes() {
        assertDecidedAlike(
                MpiLaunch.body(TrialsMpiTest::decide)
                        .layout("2,1,2")
                        .args("untried=3000,40000,5000000")
                        .run(),
                5,
                true,
                true);
    }

    /** Without the header the sizes below its capacity are tried, on uneven nodes. */
    @Test
    void withEqualCountsThereIsNoHeaderToRideIn() {
        assertDecidedAlike(
                MpiLaunch.body(TrialsMpiTest::decide)
                        .layout("2,1,2")
                        .env("HBCAST_COUNTS", "equal")
                        .args("kept=no", "untried=5000000")
                        .run(),
                5,
                false,
                false);
    }

    /**
     * Across hosts create tries the sizes from 64 KiB itself ({@code CreateTrials}): what it decides
     * a second instance in the JVM starts from, though nothing is written yet; the first instance
     * writes it at close.
     */
    @Test
    void createsTrialsAcrossHostsAreKeptInTheJvmAndWrittenAtClose() {
        MpiOutcome out =
                MpiLaunch.body(TrialsMpiTest::createTrials).layout("bed 2x2").run();
        out.assertAllRanksOk();
        System.out.println(out.result(0).notes());
    }

    /** Sizes create's trials may decide across hosts: their first, always started, and three more the budget may leave. */
    private static final int[] CREATE_TRIED = {65_536, 131_072, 262_144, 524_288};

    static void createTrials(Ranks ranks) throws Exception {
        ranks.plan(ranks.rank() == 0 ? 5 + CREATE_TRIED.length : 3 + CREATE_TRIED.length);
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        List<String> decided = new ArrayList<>();
        try (HierarchicalBcast first = HierarchicalBcast.create(world)) {
            for (int bytes : CREATE_TRIED) {
                decided.add(bytes + ":" + verdict(first, bytes));
            }
            report.note("decided at create", String.join(",", decided));
            report.check("create decided the first size it tries", () -> {
                String v = decided.get(0);
                if (v.endsWith(":null") || v.endsWith(":-")) {
                    throw new AssertionError("create left " + v + " undecided");
                }
            });
            report.check("verdicts alike on every rank", () -> sameOnEveryRank(world, String.join(",", decided)));
            world.barrier();
            if (world.getRank() == 0) {
                report.check("nothing written at create", () -> {
                    if (LearntFiles.find().isPresent()) {
                        throw new AssertionError(
                                "create wrote " + LearntFiles.find().get());
                    }
                });
            }
            try (HierarchicalBcast second = HierarchicalBcast.create(world)) {
                for (int k = 0; k < CREATE_TRIED.length; k++) {
                    int bytes = CREATE_TRIED[k];
                    String want = decided.get(k);
                    String v = verdict(second, bytes);
                    report.check("a second instance starts from create's verdict for " + bytes + " B", () -> {
                        if (!want.endsWith(":null") && !want.equals(bytes + ":" + v)) {
                            throw new AssertionError(
                                    "the second instance starts from " + v + ", create decided " + want);
                        }
                    });
                }
                Broadcasts.check(report, second, world, Payload.Kind.BUFFER, ElementType.INT, 65_536 / 4, 1, 4242);
            }
        }
        world.barrier();
        if (world.getRank() == 0) {
            List<String> kept = new ArrayList<>();
            for (String v : decided) {
                if (!v.endsWith(":null")) {
                    kept.add(v);
                }
            }
            report.check("the first instance wrote create's verdicts at close", () -> keptInTheCache(kept));
        }
    }

    /**
     * 3000 B and 40,000 B may ride in the header (and across a network are tried against the plans);
     * 5,000,000 B is past what it carries on any layout (4 MiB on one host whose ranks take every core).
     */
    private static final int[] BYTES = {3000, 40_000, 5_000_000};
    /** Enough calls for every size's first calls and trials (at most six options, two blocks each) and then some. */
    static final int CALLS_PER_SIZE = (int) TrialSchedule.FIRST_TRIAL_AFTER
            + TrialSchedule.MAX_OPTIONS * TrialSchedule.MAX_PASSES * TrialSchedule.BLOCK
            + 4;

    /**
     * On every rank: calls of three sizes (two the header may carry, one past it), roots rotating,
     * arrays and direct buffers alternating, every call's data checked while the plans are tried.
     * Then every size must be decided, alike on every rank, except those named
     * {@code untried=<size>,...}, which must ride in the header untried (verdict {@code -}: on one host
     * the header carries all it can untried); under the default options rank 0 must have kept the
     * verdicts in the cache on close, and a second instance must start from them ({@code kept=no}:
     * other options, nothing may be kept).
     *
     * <p>Cases: every checked broadcast, each size decided or untried as expected (note
     * {@code decided <size>}: the choice), the verdicts alike on every rank; then nothing kept
     * ({@code kept=no}), or rank 0's kept file, and for each size the new instance's verdict and a
     * checked broadcast on it.
     */
    /**
     * The trials' state for host calls of {@code bytes}, from the explanation: the kept plan's label
     * (or {@code inline}), null while they still try, {@code -} where the size is not tried.
     */
    private static String verdict(HierarchicalBcast hb, long bytes) {
        String trials = hb.explain(bytes).trials();
        return trials.startsWith("kept ") ? trials.substring(5) : trials.equals("not tried") ? "-" : null;
    }

    static void decide(Ranks ranks) throws Exception {
        boolean kept = !ranks.arg("kept", "yes").equals("no");
        Set<Integer> untried = new HashSet<>();
        for (String s : ranks.arg("untried", "").split(",")) {
            if (!s.isEmpty()) {
                untried.add(Integer.parseInt(s));
            }
        }
        // The checked calls, each size decided, the verdicts compared; then what was kept.
        ranks.plan(CALLS_PER_SIZE * BYTES.length + BYTES.length + 1);
        ranks.plan(kept ? (ranks.rank() == 0 ? 1 : 0) + 2 * BYTES.length : 1);
        run(ranks.world(), kept, untried, ranks.report());
    }

    /**
     * @param kept whether the options are the defaults, under which verdicts are kept in the cache
     * @param untried the sizes that must ride in the header untried
     */
    private static String run(Intracomm world, boolean kept, Set<Integer> untried, RankReport report) throws Exception {
        int size = world.getSize();
        List<String> verdicts = new ArrayList<>();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            for (int i = 0; i < CALLS_PER_SIZE * BYTES.length; i++) {
                int bytes = BYTES[i % BYTES.length];
                Payload.Kind kind = i % 2 == 0 ? Payload.Kind.BUFFER : Payload.Kind.ARRAY;
                Broadcasts.check(report, hb, world, kind, ElementType.INT, bytes / 4, (i / 3) % size, 7000 + i);
            }
            for (int bytes : BYTES) {
                String v = verdict(hb, bytes);
                report.check(bytes + " B decided", () -> {
                    if (untried.contains(bytes) && !"-".equals(v)) {
                        throw new AssertionError(
                                bytes + " B: tried (" + v + "), expected to ride in the header untried");
                    }
                    if (!untried.contains(bytes) && (v == null || v.equals("-"))) {
                        throw new AssertionError(
                                bytes + " B: not decided after " + CALLS_PER_SIZE + " calls (" + v + ")");
                    }
                });
                report.note("decided " + bytes, v);
                verdicts.add(bytes + ":" + v);
            }
            report.check("verdicts alike on every rank", () -> sameOnEveryRank(world, String.join(",", verdicts)));
        }
        world.barrier();
        String decided = String.join(",", verdicts);
        if (!kept) {
            report.check("nothing kept under other options than the defaults", () -> {
                if (LearntFiles.find().isPresent()) {
                    throw new AssertionError("verdicts learnt under other options than the defaults were kept");
                }
            });
            return "decided=" + decided;
        }
        if (world.getRank() == 0) {
            report.check("rank 0 kept the verdicts in the cache", () -> keptInTheCache(verdicts));
        }
        world.barrier();
        try (HierarchicalBcast again = HierarchicalBcast.create(world)) {
            for (int k = 0; k < BYTES.length; k++) {
                String v = verdict(again, BYTES[k]);
                String want = verdicts.get(k);
                int bytes = BYTES[k];
                report.check("a new instance starts from the kept verdict for " + bytes + " B", () -> {
                    if (!want.equals(bytes + ":" + v)) {
                        throw new AssertionError(
                                "a new instance starts from " + v + " for " + bytes + " B, this run kept " + want);
                    }
                });
                Broadcasts.check(
                        report, again, world, Payload.Kind.BUFFER, ElementType.INT, BYTES[k] / 4, size - 1, 9000 + k);
            }
        }
        return "decided=" + decided;
    }

    /** The learnt file in the cache holds every verdict of this run (a run that tried nothing needs none). */
    private static void keptInTheCache(List<String> verdicts) throws Exception {
        if (verdicts.stream().allMatch(v -> v.endsWith(":-"))) {
            return;
        }
        Path file = LearntFiles.kept();
        String json = Files.readString(file, StandardCharsets.UTF_8);
        for (String v : verdicts) {
            String choice = v.substring(v.indexOf(':') + 1);
            if (choice.equals("-")) {
                continue;
            }
            if (!json.contains("\"" + choice + "\"")) {
                throw new AssertionError(file + " lacks " + choice + ": " + json);
            }
        }
    }

    /** Every rank must hold the same verdicts: compares this rank's text with rank 0's. */
    private static void sameOnEveryRank(Intracomm world, String mine) throws Exception {
        byte[] text = new byte[256];
        byte[] own = mine.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(own, 0, text, 0, Math.min(own.length, text.length));
        byte[] rootText = text.clone();
        world.bcast(rootText, rootText.length, MPI.BYTE, 0);
        if (!java.util.Arrays.equals(text, rootText)) {
            throw new AssertionError("rank " + world.getRank() + " kept " + mine + ", rank 0 kept "
                    + new String(rootText, StandardCharsets.US_ASCII).trim());
        }
    }
}
