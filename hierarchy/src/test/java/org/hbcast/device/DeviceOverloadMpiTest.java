package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.hbcast.HierarchicalBcast;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The device overload's checks, on any machine (see {@link #refusals}); tagged gpu so that scripts/gpu-test runs it too. */
@Tag("gpu")
class DeviceOverloadMpiTest {
    @Test
    void refusesCleanlyAndLeavesHostPathsWorking() {
        MpiOutcome out = MpiLaunch.body(DeviceOverloadMpiTest::refusals)
                .layout("2,1")
                .run()
                .assertAllRanksOk();
        for (int r = 0; r < 3; r++) {
            assertTrue(out.note(r, NULL_REFUSED).contains("buffer is null"), out.describe("rank " + r));
        }
    }

    @Test
    void oneRankRefusingUnderTrustedCountsFailsEveryRankInsteadOfHanging() {
        // No per-call agreement under trusted counts: the refusing rank joins the first call's ring
        // set-up as a failure. Before, the others waited in that set-up for ever.
        MpiOutcome out = MpiLaunch.body(DeviceOverloadMpiTest::refusals)
                .layout("2,1")
                .env("HBCAST_COUNTS", "trusted")
                .env("HBCAST_TIMEOUT_S", "20")
                .env("HBCAST_TIMEOUT_FAILS", "1")
                .run()
                .assertAllRanksOk();
        assertTrue(out.note(1, ONE_REFUSES).contains("buffer is null"), out.describe("rank 1"));
        for (int r = 0; r < 3; r++) {
            assertTrue(!out.note(r, ONE_REFUSES).isBlank(), out.describe("rank " + r));
        }
    }

    /** The first case, and the note of the message it got. */
    static final String NULL_REFUSED = "a null device buffer refused";
    /** The third case: rank 1 alone refuses its arguments; every rank must fail, none wait. */
    static final String ONE_REFUSES = "one rank refuses, every rank fails";

    /**
     * On every rank: a null buffer (which Java resolves to the device overload) is named as in the
     * host overload, and without a device the reason is given too, before anything is sent; host
     * broadcasts work afterwards; when rank 1 alone refuses its arguments, every rank fails that call
     * instead of waiting for it. The refusals' messages are the notes {@value #NULL_REFUSED} and
     * {@value #ONE_REFUSES}.
     */
    static void refusals(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        CudaDevices devices = CudaDevices.get();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            // A literal null resolves to the device overload and must keep the host overload's message.
            String expected = devices.available()
                    ? "buffer is null"
                    : "buffer is null (and no CUDA device: " + devices.unavailableReason() + ")";
            ranks.checkAll(List.of(
                    Ranks.named(NULL_REFUSED, () -> {
                        try {
                            hb.bcast((DeviceBuffer) null, 16, MPI.BYTE, 0);
                            throw new AssertionError("a device bcast of a null buffer did not fail");
                        } catch (MPIException e) {
                            if (!e.getMessage().contains(expected)) {
                                throw new AssertionError(
                                        "expected an error saying '" + expected + "', got: " + e.getMessage());
                            }
                            report.note(NULL_REFUSED, e.getMessage());
                        }
                    }),
                    Ranks.named("host bcast after the refused device call", () -> {
                        ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
                        if (world.getRank() == 0) {
                            for (int i = 0; i < buf.capacity(); i++) {
                                buf.put(i, (byte) (i * 7));
                            }
                        }
                        hb.bcast(buf, buf.capacity(), MPI.BYTE, 0);
                        for (int i = 0; i < buf.capacity(); i++) {
                            if (buf.get(i) != (byte) (i * 7)) {
                                throw new AssertionError(
                                        "host bcast after the refused device call: byte " + i + " differs");
                            }
                        }
                    }),
                    Ranks.named(ONE_REFUSES, () -> {
                        // Rank 1 refuses its arguments; where there is a device the others' are good. Under
                        // trusted counts no per-call agreement tells them: the first call's ring set-up must.
                        DeviceBuffer mine = world.getRank() != 1 && devices.available()
                                ? DeviceBuffer.allocate(16, devices.deviceForLocalRank(0))
                                : null;
                        try {
                            hb.bcast(mine, 16, MPI.BYTE, 0);
                            throw new AssertionError("a device bcast that rank 1 refused did not fail here");
                        } catch (MPIException e) {
                            report.note(ONE_REFUSES, e.getMessage());
                        } finally {
                            if (mine != null) {
                                mine.close();
                            }
                        }
                    })));
        }
    }
}
