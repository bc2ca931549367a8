package org.hbcast.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.BcastOptions;
import org.hbcast.HierarchicalBcast;
import org.hbcast.call.ElementType;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.ExpectError;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Test;

/**
 * The settings are the communicator's (issue 52): a rank whose environment differs follows rank 0
 * and says so, options passed in code that differ fail {@code create} everywhere, and a rank that
 * cannot set up makes {@code create} fail on every rank with its reason, without a hang or a leak.
 * Each launch checks ten broadcasts of 4 MiB byte for byte on every rank, or the error on every rank.
 */
class SettingsMpiTest {
    private static final String FOLLOWS = "follows rank 0's settings";
    private static final int RANKS = 4;

    /** The case: one node created with 64 KiB chunks, the other with 1 MiB (the job aborted). */
    @Test
    void chunkFromTheEnvironmentOfOneNodeFollowsRankZero() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::follow)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .env("HBCAST_CHUNK_BYTES", "1048576")
                .rankEnv(2, "HBCAST_CHUNK_BYTES", "65536")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "65536")
                .run()
                .assertAllRanksOk();
        assertFollowed(out, "HBCAST_CHUNK_BYTES=65536 here, 1048576 on rank 0", 2, 3);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("1048576", out.note(r, "chunk"), out.describe("rank " + r));
        }
    }

    /** The same across two real hosts, with the variable set on the second host only (no -x for it). */
    @Test
    void chunkSetOnOneHostOnlyFollowsRankZeroOnTheTestBed() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::follow)
                .ranks(RANKS)
                .testBed(2, 2)
                .env("HBCAST_ALGORITHM", "hierarchical")
                .rankEnv(2, "HBCAST_CHUNK_BYTES", "32768")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "32768")
                .run()
                .assertAllRanksOk();
        assertFollowed(out, "HBCAST_CHUNK_BYTES=32768 here, 0 on rank 0", 2, 3);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("0", out.note(r, "chunk"), out.describe("rank " + r));
        }
    }

    /**
     * A system property works where its variable does (and wins over it): rank 3's JVM is given
     * {@code -Dhbcast.chunk.bytes}; at the info level rank 0 logs the communicator's line.
     */
    @Test
    void aSystemPropertyIsASettingAndCreateLogsItsLine() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::follow)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .env("HBCAST_LOG_LEVEL", "info")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "1048576")
                .rankJvmOption(3, "-Dhbcast.chunk.bytes=65536")
                .run()
                .assertAllRanksOk();
        assertFollowed(out, "HBCAST_CHUNK_BYTES=65536 here, 0 on rank 0", 3);
        assertTrue(
                out.output()
                        .matches("(?s).*hbcast [0-9.]+ on Open MPI v[0-9.]+.*: 4 ranks, nodes 2\\+2 \\(virtual\\) on 1"
                                + " host\\(s\\); algorithm hierarchical; plans: 1 KiB .*"),
                out.describe("the create line at the info level"));
    }

    /** One rank asked for Open MPI's bcast, the others for the hierarchy: it hung forever. */
    @Test
    void algorithmOfOneRankFollowsRankZero() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::follow)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .rankEnv(1, "HBCAST_ALGORITHM", "native")
                .run()
                .assertAllRanksOk();
        assertFollowed(out, "HBCAST_ALGORITHM=native here, hierarchical on rank 0", 1);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("hierarchical", out.note(r, "algorithm"), out.describe("rank " + r));
        }
    }

    /** Node sizes read by rank 0 only shape every rank's layout (they issued mismatched collectives). */
    @Test
    void nodeSizesOfRankZeroApplyEverywhere() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::follow)
                .ranks(RANKS)
                .rankEnv(0, "HBCAST_NODE_SIZES", "2,2")
                .run()
                .assertAllRanksOk();
        assertFollowed(out, "HBCAST_NODE_SIZES=(unset) here, 2,2 on rank 0", 1, 2, 3);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("[0, 1] + [2, 3]", out.note(r, "nodes"), out.describe("rank " + r));
        }
    }

    @Test
    void optionsPassedInCodeThatDifferFailCreateOnEveryRank() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::code)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < RANKS; r++) {
            assertTrue(
                    out.note(r, "code error")
                            .contains("HBCAST_CHUNK_BYTES (passed in code): 1048576 on ranks 0-1, 65536 on ranks 2-3"),
                    out.describe("rank " + r));
        }
    }

    /** A bad value on one rank only: that rank threw before create's first collective, the others hung. */
    @Test
    void aBadValueOnOneRankFailsCreateOnEveryRank() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::fails)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "lots")
                .args("expect=rank 3: HBCAST_CHUNK_BYTES='lots' is not a whole number")
                .run()
                .assertAllRanksOk();
        out.assertNoLeakedSegments();
    }

    /**
     * A full /dev/shm on one node (a container's 64 MiB default, say): its ranks could not make the
     * node's segments and failed create, while the other node's ranks went on and timed out later.
     */
    @Test
    void sharedMemoryFullOnOneRankFailsCreateOnEveryRank() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::fails)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .rankSharedMemory(3, "64k")
                .args("expect=on rank 3")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < RANKS; r++) {
            assertTrue(out.note(r, "create error").contains("cannot set up"), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
    }

    /** Direct memory too short on one rank for the warm-up: create failed there and freed its communicator twice. */
    @Test
    void aRankShortOfDirectMemoryFailsCreateOnEveryRank() {
        MpiOutcome out = MpiLaunch.body(SettingsMpiTest::fails)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .rankJvmOption(2, "-XX:MaxDirectMemorySize=64k")
                .args("expect=on rank 2")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < RANKS; r++) {
            assertTrue(out.note(r, "create error").contains("direct buffer memory"), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
    }

    private static void assertFollowed(MpiOutcome out, String what, int... followers) {
        for (int r = 0; r < RANKS; r++) {
            boolean follower = false;
            for (int f : followers) {
                follower |= f == r;
            }
            String line = "rank " + r + " " + FOLLOWS;
            if (follower) {
                assertTrue(
                        out.output().contains(line) && out.output().contains(what), out.describe(line + ": " + what));
            } else {
                assertFalse(out.output().contains(line), out.describe("rank " + r + " should not follow"));
            }
        }
    }

    private static final int CALLS = 10;
    private static final int INTS = 1 << 20;

    /** {@code create} from each rank's environment; notes {@code algorithm}, {@code chunk}, {@code nodes} (the layout's node sizes), then the checked calls. */
    static void follow(Ranks ranks) throws Exception {
        try (HierarchicalBcast hb = HierarchicalBcast.create(ranks.world())) {
            noteAndCheck(hb, ranks.world(), ranks.report());
        }
    }

    /**
     * Options passed in code that differ (the chunk, by node) must fail {@code create} on every rank
     * (note {@code code error}); {@code create} from the environment then works.
     */
    static void code(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        int chunk = world.getRank() < world.getSize() / 2 ? 1 << 20 : 64 << 10;
        ranks.checkAll(List.of(ExpectError.named(
                ranks.report(),
                "code error",
                "HBCAST_CHUNK_BYTES",
                () -> HierarchicalBcast.create(world, BcastOptions.defaults().withChunkBytes(chunk)))));
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            noteAndCheck(hb, world, ranks.report());
        }
    }

    /**
     * {@code create} from the environment must fail on every rank with an error containing
     * {@code expect=}; Open MPI's own broadcast then still works (nobody is left waiting inside
     * {@code create}).
     */
    static void fails(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        ranks.checkAll(List.of(
                ExpectError.named(
                        ranks.report(), "create error", ranks.arg("expect", ""), () -> HierarchicalBcast.create(world)),
                Ranks.named("Open MPI's bcast after", () -> {
                    int[] x = {world.getRank() == 0 ? 4242 : 0};
                    world.bcast(x, 1, MPI.INT, 0);
                    if (x[0] != 4242) {
                        throw new AssertionError("Open MPI's bcast gave " + x[0]);
                    }
                })));
    }

    private static void noteAndCheck(HierarchicalBcast hb, mpi.Intracomm world, org.hbcast.testing.RankReport report)
            throws Exception {
        report.note("algorithm", hb.options().algorithm().toString())
                .note("chunk", Integer.toString(hb.options().chunkBytes()))
                .note("nodes", hb.topology().toString());
        report.plan(CALLS);
        for (int i = 0; i < CALLS; i++) {
            Broadcasts.check(
                    report, hb, world, Payload.Kind.ARRAY, ElementType.INT, INTS, i % world.getSize(), 52_000 + i);
        }
    }
}
