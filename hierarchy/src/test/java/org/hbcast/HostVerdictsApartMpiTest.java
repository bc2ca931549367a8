package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import mpi.Intracomm;
import org.hbcast.call.ElementType;
import org.hbcast.plan.MemoryKind;
import org.hbcast.support.Broadcasts;
import org.hbcast.support.Payload;
import org.hbcast.testing.MpiLaunch;
import org.hbcast.testing.MpiOutcome;
import org.hbcast.testing.RankReport;
import org.hbcast.testing.Ranks;
import org.hbcast.tuning.LearntPlans;
import org.hbcast.tuning.TuningFiles;
import org.hbcast.tuning.TuningJson;
import org.junit.jupiter.api.Test;

/**
 * Host calls on real launches beside device verdicts an earlier run kept: a device verdict never
 * becomes a host incumbent, even where it names a plan host calls try too, while a host verdict in
 * the same record does (the control); host calls then decide their class afresh, logged as a host
 * verdict, and rank 0 keeps the device verdicts as they were beside the host ones.
 */
class HostVerdictsApartMpiTest {
    /** Host class of 8 MiB: past what the header carries on any host (at most 4 MiB), tried. */
    private static final int TRIED = 5_000_000;
    /** Host class of 16 MiB: the control, a host verdict adopted. */
    private static final int CONTROL = 10_000_000;

    private static final int TRIED_CLASS = 23;
    private static final int CONTROL_CLASS = 24;

    @Test
    void deviceVerdictsLeaveHostCallsAlone() {
        MpiOutcome out = MpiLaunch.body(HostVerdictsApartMpiTest::apart)
                .layout("4")
                .env("HBCAST_TRIALS_LOG", "1")
                .run()
                .assertAllRanksOk()
                .assertPlannedCasesOnEveryRank();
        // The log names the memory kind of each verdict: here host calls only.
        assertTrue(out.output().contains("hbcast: trials for host messages of 4194305..8388608 B kept "), out.output());
        assertFalse(out.output().contains("trials for device messages"), out.output());
    }

    /** A host label of {@code hb}'s options for {@code bytes} other than {@code not}: Open MPI's bcast or the fan-out. */
    private static String otherThan(String not) {
        return not.equals("native") ? "hierarchical/fanout" : "native";
    }

    private static String kept(HierarchicalBcast hb, long bytes) {
        String trials = hb.explain(bytes).trials();
        return trials.startsWith("kept ") ? trials.substring(5) : trials;
    }

    static void apart(Ranks ranks) throws Exception {
        Intracomm world = ranks.world();
        RankReport report = ranks.report();
        int rank = world.getRank();
        int calls = TrialsMpiTest.CALLS_PER_SIZE;
        ranks.plan(2 + calls + (rank == 0 ? 1 : 0));
        String fingerprint;
        String baseline;
        String baselineControl;
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            fingerprint = hb.fingerprint().id();
            baseline = kept(hb, TRIED);
            baselineControl = kept(hb, CONTROL);
        }
        String deviceChoice = otherThan(baseline);
        String hostChoice = otherThan(baselineControl);
        List<LearntPlans.Verdict> written = List.of(
                new LearntPlans.Verdict(TRIED_CLASS, MemoryKind.DEVICE, deviceChoice, 1e-3),
                new LearntPlans.Verdict(CONTROL_CLASS, MemoryKind.HOST, hostChoice, 2e-3),
                new LearntPlans.Verdict(CONTROL_CLASS, MemoryKind.DEVICE, "hierarchical/ring", 3e-3));
        Path file = TuningFiles.learnt(System.getenv(), fingerprint);
        if (rank == 0) {
            new LearntPlans(LearntPlans.FORMAT_VERSION, fingerprint, "x", written).write(file);
        }
        world.barrier();
        try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
            String control = kept(hb, CONTROL);
            report.check("a host verdict kept earlier is the host incumbent (the control)", () -> {
                if (!control.equals(hostChoice)) {
                    throw new AssertionError(CONTROL + " B starts from " + control + ", the record says " + hostChoice);
                }
            });
            String tried = kept(hb, TRIED);
            report.check("a device verdict kept earlier is not a host incumbent", () -> {
                if (!tried.equals(baseline)) {
                    throw new AssertionError(TRIED + " B starts from " + tried + " (the device verdict " + deviceChoice
                            + "), without a record from " + baseline);
                }
            });
            for (int i = 0; i < calls; i++) {
                Payload.Kind kind = i % 2 == 0 ? Payload.Kind.BUFFER : Payload.Kind.ARRAY;
                Broadcasts.check(report, hb, world, kind, ElementType.INT, TRIED / 4, i % world.getSize(), 5000 + i);
            }
        }
        world.barrier();
        if (rank == 0) {
            report.check("the device verdicts are kept as they were beside the host ones", () -> {
                LearntPlans kept = TuningJson.mapper().readValue(Files.readAllBytes(file), LearntPlans.class);
                String all = kept.verdicts().toString();
                if (!written.get(0).equals(kept.verdict(MemoryKind.DEVICE, TRIED_CLASS))
                        || !written.get(1).equals(kept.verdict(MemoryKind.HOST, CONTROL_CLASS))
                        || !written.get(2).equals(kept.verdict(MemoryKind.DEVICE, CONTROL_CLASS))) {
                    throw new AssertionError("the earlier verdicts changed: " + all);
                }
                if (kept.verdict(MemoryKind.HOST, TRIED_CLASS) == null) {
                    throw new AssertionError("no host verdict for " + TRIED + " B after " + calls + " calls: " + all);
                }
            });
        }
    }
}
