package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
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
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .env("HBCAST_CHUNK_BYTES", "1048576")
                .rankEnv(2, "HBCAST_CHUNK_BYTES", "65536")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "65536")
                .args("suite=follow")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
        assertFollowed(out, "HBCAST_CHUNK_BYTES=65536 here, 1048576 on rank 0", 2, 3);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("1048576", out.note(r, "chunk"), out.describe("rank " + r));
        }
    }

    /** The same across two real hosts, with the variable set on the second host only (no -x for it). */
    @Test
    void chunkSetOnOneHostOnlyFollowsRankZeroOnTheTestBed() {
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .testBed(2, 2)
                .env("HBCAST_ALGORITHM", "hierarchical")
                .rankEnv(2, "HBCAST_CHUNK_BYTES", "32768")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "32768")
                .args("suite=follow")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
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
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .env("HBCAST_LOG_LEVEL", "info")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "1048576")
                .rankJvmOption(3, "-Dhbcast.chunk.bytes=65536")
                .args("suite=follow")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
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
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .rankEnv(1, "HBCAST_ALGORITHM", "native")
                .args("suite=follow")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
        assertFollowed(out, "HBCAST_ALGORITHM=native here, hierarchical on rank 0", 1);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("hierarchical", out.note(r, "algorithm"), out.describe("rank " + r));
        }
    }

    /** Node sizes read by rank 0 only shape every rank's layout (they issued mismatched collectives). */
    @Test
    void nodeSizesOfRankZeroApplyEverywhere() {
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .rankEnv(0, "HBCAST_NODE_SIZES", "2,2")
                .args("suite=follow")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(10);
        assertFollowed(out, "HBCAST_NODE_SIZES=(unset) here, 2,2 on rank 0", 1, 2, 3);
        for (int r = 0; r < RANKS; r++) {
            assertEquals("[0, 1] + [2, 3]", out.note(r, "nodes"), out.describe("rank " + r));
        }
    }

    @Test
    void optionsPassedInCodeThatDifferFailCreateOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .args("suite=code")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(11);
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
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .rankEnv(3, "HBCAST_CHUNK_BYTES", "lots")
                .args("suite=fails", "expect=rank 3: HBCAST_CHUNK_BYTES='lots' is not a whole number")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2);
        out.assertNoLeakedSegments();
    }

    /**
     * A full /dev/shm on one node (a container's 64 MiB default, say): its ranks could not make the
     * node's segments and failed create, while the other node's ranks went on and timed out later.
     */
    @Test
    void sharedMemoryFullOnOneRankFailsCreateOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .env("HBCAST_ALGORITHM", "hierarchical")
                .rankSharedMemory(3, "64k")
                .args("suite=fails", "expect=on rank 3")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2);
        for (int r = 0; r < RANKS; r++) {
            assertTrue(out.note(r, "create error").contains("cannot set up"), out.describe("rank " + r));
        }
        out.assertNoLeakedSegments();
    }

    /** Direct memory too short on one rank for the warm-up: create failed there and freed its communicator twice. */
    @Test
    void aRankShortOfDirectMemoryFailsCreateOnEveryRank() {
        MpiOutcome out = MpiLaunch.program(SettingsProgram.class)
                .ranks(RANKS)
                .nodeSizes("2,2")
                .rankJvmOption(2, "-XX:MaxDirectMemorySize=64k")
                .args("suite=fails", "expect=on rank 2")
                .run()
                .assertAllRanksOk()
                .assertCasesOnEveryRank(2);
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
}
