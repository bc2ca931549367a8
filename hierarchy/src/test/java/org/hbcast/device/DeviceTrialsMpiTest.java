package org.hbcast.device;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import org.hbcast.HierarchicalBcast;
import org.hbcast.plan.MemoryKind;
import org.hbcast.select.TrialSchedule;
import org.hbcast.support.LearntFiles;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.hbcast.tuning.LearntPlans;
import org.hbcast.tuning.TuningJson;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Device calls tried in the run, on a real GPU: enough calls of three sizes (one staged through the
 * host by the model on one GPU, one past it, one past the short blocks' bound) that every size
 * reaches its trials and decides, every call's bytes checked on every rank while the plans are tried;
 * the verdicts alike on every rank, logged ({@code HBCAST_TRIALS_LOG=1}) and kept by rank 0 as device
 * verdicts; a second instance starts from them. Skipped, with the reason, where no CUDA device can be
 * used. Run with {@code scripts/gpu-test} (or the bundle's {@code bin/gpu-test}).
 */
@Tag("gpu")
class DeviceTrialsMpiTest {
    /** 3000 B, 700,000 B and 3 MiB + 5: classes of 4 KiB, 1 MiB and 4 MiB. */
    private static final int[] BYTES = {3000, 700_000, (3 << 20) + 5};
    /** Enough calls for each size's first calls and its trials (at most every option, every pass) and then some. */
    private static final int CALLS_PER_SIZE = (int) TrialSchedule.FIRST_TRIAL_AFTER
            + TrialSchedule.MAX_OPTIONS * TrialSchedule.MAX_PASSES * TrialSchedule.BLOCK
            + 4;

    /**
     * On virtual nodes 2+2, where every device algorithm is an option (staging, the flat tree, the
     * hierarchy: its leaders stage through the host, each node's two ranks share the GPU's group). One
     * layout: a launch here takes 12-18 s of the lease's {@code gpu-test} step.
     */
    @Test
    void deviceCallsReachTheirTrialsDecideAlikeAndAreKept() {
        String layout = "2,2";
        CudaDevices devices = CudaDevices.get();
        assumeTrue(devices.available(), () -> "no CUDA device: " + devices.unavailableReason());
        MpiOutcome out = MpiLaunch.body(DeviceTrialsMpiTest::decide)
                .layout(layout)
                .env("HBCAST_TRIALS_LOG", "1")
                .run()
                .assertAllRanksOk()
                .assertPlannedCasesOnEveryRank();
        for (int bytes : BYTES) {
            String v = out.note(0, "decided " + bytes);
            for (int r = 1; r < out.ranks(); r++) {
                assertTrue(v.equals(out.note(r, "decided " + bytes)), out.describe("rank " + r + ", " + bytes + " B"));
            }
        }
        assertTrue(
                out.output().contains("hbcast: trials for device messages of"),
                out.describe("rank 0 logs the device verdicts"));
        System.out.println(out.result(0).notes());
    }

    static void decide(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        int rank = world.getRank();
        int size = world.getSize();
        ranks.plan(CALLS_PER_SIZE * BYTES.length + BYTES.length + (rank == 0 ? 1 : 0) + 2 * BYTES.length);
        List<String> decided = new ArrayList<>();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            int device = CudaDevices.get().deviceForLocalRank(hb.topology().position());
            CudaContext.use(device);
            try (DeviceBuffer buf = DeviceBuffer.allocate(BYTES[BYTES.length - 1], device)) {
                for (int i = 0; i < CALLS_PER_SIZE * BYTES.length; i++) {
                    int bytes = BYTES[i % BYTES.length];
                    int root = (i / BYTES.length) % size;
                    int call = i;
                    report.check(
                            bytes + " B, call " + i + " from rank " + root,
                            () -> checked(hb, buf, bytes, root, rank, call));
                }
                for (int bytes : BYTES) {
                    String trials = hb.explainDevice(bytes).trials();
                    report.check(bytes + " B decided", () -> {
                        if (!trials.startsWith("kept ")) {
                            throw new AssertionError(bytes + " B: " + trials + " after " + CALLS_PER_SIZE + " calls");
                        }
                    });
                    report.note("decided " + bytes, trials);
                    decided.add(trials.substring(Math.min(5, trials.length())));
                }
            }
        }
        world.barrier();
        if (rank == 0) {
            report.check("rank 0 kept the device verdicts", () -> keptAsDeviceVerdicts(decided));
        }
        world.barrier();
        try (HierarchicalBcast again = HierarchicalBcast.create(world)) {
            int device = CudaDevices.get().deviceForLocalRank(again.topology().position());
            CudaContext.use(device);
            try (DeviceBuffer buf = DeviceBuffer.allocate(BYTES[BYTES.length - 1], device)) {
                for (int k = 0; k < BYTES.length; k++) {
                    int bytes = BYTES[k];
                    String want = "kept " + decided.get(k);
                    String got = again.explainDevice(bytes).trials();
                    report.check("a new instance starts from the kept verdict for " + bytes + " B", () -> {
                        if (!want.equals(got)) {
                            throw new AssertionError("a new instance: " + got + "; this run " + want);
                        }
                    });
                    int call = 100_000 + k;
                    report.check(
                            bytes + " B on the new instance", () -> checked(again, buf, bytes, size - 1, rank, call));
                }
            }
        }
    }

    /** The byte {@code j} of call {@code call}: differs from one call to the next, so stale bytes show. */
    private static byte pattern(int j, int call) {
        return (byte) (j * 31 + call * 7 + 1);
    }

    /** One broadcast of {@code bytes} from {@code root}, every byte checked on every rank. */
    private static void checked(HierarchicalBcast hb, DeviceBuffer buf, int bytes, int root, int rank, int call)
            throws Exception {
        byte[] data = new byte[bytes];
        for (int j = 0; j < bytes; j++) {
            data[j] = rank == root ? pattern(j, call) : (byte) 0x5A;
        }
        buf.copyFromHost(data, 0, bytes);
        hb.bcast(buf, bytes, MPI.BYTE, root);
        buf.copyToHost(0, data, bytes);
        for (int j = 0; j < bytes; j++) {
            if (data[j] != pattern(j, call)) {
                throw new AssertionError("byte " + j + " of " + bytes + " from rank " + root + " is " + data[j]
                        + ", sent " + pattern(j, call));
            }
        }
    }

    /** Rank 0's learnt file holds a device verdict for each size, the one this run decided. */
    private static void keptAsDeviceVerdicts(List<String> decided) throws Exception {
        Path file = LearntFiles.kept();
        String json = Files.readString(file, StandardCharsets.UTF_8);
        LearntPlans kept = TuningJson.mapper().readValue(json, LearntPlans.class);
        for (int k = 0; k < BYTES.length; k++) {
            int c = 64 - Long.numberOfLeadingZeros(BYTES[k] - 1L);
            LearntPlans.Verdict v = kept.verdict(MemoryKind.DEVICE, c);
            if (v == null || !v.choice().equals(decided.get(k))) {
                throw new AssertionError(file + ": device class " + c + " holds " + v + ", this run decided "
                        + decided.get(k) + ": " + json);
            }
        }
    }
}
