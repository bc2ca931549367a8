package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.tuning.Candidates;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.LearntPlans;
import org.hbcast.tuning.TuningFixtures;
import org.hbcast.tuning.TuningInputs;
import org.junit.jupiter.api.Test;

/**
 * In-run trials of device calls, pure: every size class of every layout, through the same {@link
 * TrialSchedule} as host calls, in a schedule of their own. Staging through the host is always an
 * option, the model's device plan the incumbent, no call before the 129th of a class is a trial, the
 * fastest option wins, and host and device verdicts never stand in for each other.
 */
class DeviceTrialsTest {
    private static final String[] LAYOUTS = {
        "1", "2", "4", "8", "2x1", "3x1", "2x2", "2x2 virtual", "4,2,2", "3,1,2 virtual", "8x4"
    };

    private static Selector selector(String layout, Choices choices, LearntPlans learnt) {
        ClusterShape shape = ClusterShape.parse(layout);
        TuningInputs inputs = TuningFixtures.modelOnly(TuningFixtures.fingerprint(shape));
        if (learnt != null) {
            inputs = inputs.withLearnt(Path.of("/c/learnt.json"), learnt, null);
        }
        return new Selector(choices.planChoices(), shape, Selector.AUTO_MAX_CHUNK_BYTES, inputs);
    }

    private static Selector selector(String layout) {
        return selector(layout, Choices.AUTO, null);
    }

    @Test
    void everyTriedDeviceClassTimesStagingBesideTheModelsPlanAndNoHeader() {
        for (String layout : LAYOUTS) {
            Selector selector = selector(layout);
            ClusterShape shape = selector.shape();
            TrialSchedule t = InRunSelection.deviceTrialSchedule(selector);
            for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                String where = layout + ", device class of " + (1L << c) + " B";
                boolean tried = Candidates.triedOnDevice(Choices.AUTO.planChoices(), shape, c);
                assertEquals(tried, t.tries(c), where);
                assertEquals(shape.ranks() > 1 && c <= Candidates.LARGEST_TRIED_CLASS, tried, where);
                if (!tried) {
                    assertEquals(
                            Explanation.name(selector.plan(1L << c, MemoryKind.DEVICE)),
                            Explanation.name(t.plan(c, selector.plan(1L << c, MemoryKind.DEVICE))),
                            where + ": untried, the model's plan");
                    continue;
                }
                Set<String> labels = new HashSet<>();
                for (int o = 0; o < t.options(c); o++) {
                    assertFalse(t.inlineOption(c, o), where + ": device messages never ride in the header");
                    assertTrue(labels.add(t.label(c, o)), where + ": options differ, " + t.label(c, o) + " twice");
                    Plan p = t.optionPlan(c, o);
                    assertTrue(
                            p.algorithm() != Algorithm.HIERARCHICAL || p.intra() == IntraNode.RING,
                            where + ": device plans ride the CUDA ring inside nodes");
                }
                assertTrue(labels.contains("native"), where + ": staging through the host is always tried " + labels);
                Algorithm chosen = selector.plan(1L << c, MemoryKind.DEVICE).algorithm();
                assertEquals(
                        Candidates.deviceTrialAlgorithms(shape, chosen).size(), t.options(c), where + " " + labels);
                assertEquals(
                        Explanation.name(selector.plan(1L << c, MemoryKind.DEVICE)),
                        t.label(c, t.option(c)),
                        where + ": the model's device plan is the incumbent");
                assertEquals(
                        shape.crossesNetwork() ? TrialSchedule.SCREEN_CALLS : t.blockCalls(c),
                        t.screeningCalls(c),
                        where + ": screened as host calls on the same layout");
            }
        }
    }

    @Test
    void noClassTriesWhereTheOptionsFixThePlanOrTurnTrialsOff() {
        for (String layout : LAYOUTS) {
            for (Choices choices : new Choices[] {
                Choices.AUTO.withTrials(false),
                Choices.AUTO.withAlgorithm(Algorithm.HIERARCHICAL),
                Choices.AUTO.withAlgorithm(Algorithm.NATIVE)
            }) {
                TrialSchedule t = InRunSelection.deviceTrialSchedule(selector(layout, choices, null));
                for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                    assertFalse(t.tries(c), layout + " " + choices + ", class " + c);
                }
            }
        }
    }

    /** The first {@link TrialSchedule#FIRST_TRIAL_AFTER} calls of every device class run the incumbent, untimed. */
    @Test
    void noDeviceCallBeforeTheHundredAndTwentyNinthOfItsClassIsATrial() {
        for (String layout : LAYOUTS) {
            Selector selector = selector(layout);
            TrialSchedule t = InRunSelection.deviceTrialSchedule(selector);
            for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                if (!t.tries(c)) {
                    continue;
                }
                String incumbent = t.label(c, t.option(c));
                for (long call = 1; call <= TrialSchedule.FIRST_TRIAL_AFTER; call++) {
                    String where = layout + ", class " + c + ", call " + call;
                    assertFalse(t.timed(c), where);
                    assertEquals(incumbent, Explanation.name(t.plan(c, null)), where);
                    int r = t.record(c, 0);
                    assertEquals(
                            call == TrialSchedule.FIRST_TRIAL_AFTER ? TrialSchedule.BLOCK_ENDED : TrialSchedule.GO_ON,
                            r,
                            where + ": only the last of them ends the lead-in");
                }
                assertTrue(t.timed(c), layout + ", class " + c + ": the 129th call is a trial");
            }
        }
    }

    /**
     * Runs class {@code c}'s trials to their verdict as one rank would, each call of option {@code o}
     * taking {@code nanos[o]}; returns the label kept.
     */
    static String decide(TrialSchedule t, int c, long[] nanos) {
        for (long call = 0; call < TrialSchedule.FIRST_TRIAL_AFTER; call++) {
            if (t.record(c, 0) == TrialSchedule.BLOCK_ENDED) {
                t.endBlock(c, t.blockNanos(c));
            }
        }
        for (int call = 0; call < 10_000; call++) {
            int o = t.option(c);
            if (t.record(c, nanos[o]) == TrialSchedule.BLOCK_ENDED && t.endBlock(c, t.blockNanos(c))) {
                return t.label(c, t.winner(c));
            }
        }
        throw new AssertionError("class " + c + " never decided");
    }

    /** Whichever option is clearly fastest is kept, staging through the host among them, in every class of every layout. */
    @Test
    void theFastestDeviceOptionIsKeptStagingIncluded() {
        for (String layout : LAYOUTS) {
            Selector selector = selector(layout);
            TrialSchedule probe = InRunSelection.deviceTrialSchedule(selector);
            for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                for (int fastest = 0; fastest < probe.options(c) && probe.tries(c); fastest++) {
                    TrialSchedule t = InRunSelection.deviceTrialSchedule(selector);
                    long[] nanos = new long[t.options(c)];
                    for (int o = 0; o < nanos.length; o++) {
                        nanos[o] = o == fastest ? 10_000 : 20_000;
                    }
                    assertEquals(t.label(c, fastest), decide(t, c, nanos), layout + ", class " + c);
                }
            }
        }
    }

    /** A label of class {@code c}'s options in {@code t} other than {@code not}, or null where none. */
    private static String otherLabel(TrialSchedule t, int c, String not) {
        for (int o = 0; o < t.options(c); o++) {
            if (!t.label(c, o).equals(not)) {
                return t.label(c, o);
            }
        }
        return null;
    }

    /** The label each class runs first, for all classes. */
    private static List<String> firstChoices(TrialSchedule t) {
        List<String> out = new ArrayList<>();
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            out.add(t.tries(c) ? t.label(c, t.option(c)) : "-");
        }
        return out;
    }

    /**
     * What an earlier run kept for device calls becomes the device incumbent and leaves the host
     * schedule as it was, and host verdicts leave the device schedule as it was, even where a label
     * names an option of both.
     */
    @Test
    void deviceAndHostVerdictsNeverStandInForEachOther() {
        for (String layout : LAYOUTS) {
            Selector plain = selector(layout);
            TrialSchedule device = InRunSelection.deviceTrialSchedule(plain);
            TrialSchedule host = InRunSelection.trialSchedule(plain, true);
            List<LearntPlans.Verdict> deviceVerdicts = new ArrayList<>();
            List<LearntPlans.Verdict> hostVerdicts = new ArrayList<>();
            for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                String d = device.tries(c) ? otherLabel(device, c, device.label(c, device.option(c))) : null;
                if (d != null) {
                    deviceVerdicts.add(new LearntPlans.Verdict(c, MemoryKind.DEVICE, d, 1e-3));
                }
                String h = host.tries(c) ? otherLabel(host, c, host.label(c, host.option(c))) : null;
                if (h != null) {
                    hostVerdicts.add(new LearntPlans.Verdict(c, MemoryKind.HOST, h, 1e-3));
                }
            }
            String id = plain.inputs().fingerprint().id();
            Selector withDevice = selector(
                    layout, Choices.AUTO, new LearntPlans(LearntPlans.FORMAT_VERSION, id, "x", deviceVerdicts));
            Selector withHost =
                    selector(layout, Choices.AUTO, new LearntPlans(LearntPlans.FORMAT_VERSION, id, "x", hostVerdicts));
            assertEquals(
                    firstChoices(host),
                    firstChoices(InRunSelection.trialSchedule(withDevice, true)),
                    layout + ": device verdicts left the host schedule alone");
            assertEquals(
                    firstChoices(device),
                    firstChoices(InRunSelection.deviceTrialSchedule(withHost)),
                    layout + ": host verdicts left the device schedule alone");
            TrialSchedule adopted = InRunSelection.deviceTrialSchedule(withDevice);
            for (LearntPlans.Verdict v : deviceVerdicts) {
                assertEquals(v.choice(), adopted.label(v.sizeClass(), adopted.option(v.sizeClass())), layout);
            }
            TrialSchedule hostAdopted = InRunSelection.trialSchedule(withHost, true);
            for (LearntPlans.Verdict v : hostVerdicts) {
                assertEquals(v.choice(), hostAdopted.label(v.sizeClass(), hostAdopted.option(v.sizeClass())), layout);
            }
            if (ClusterShape.parse(layout).ranks() > 1) {
                assertFalse(deviceVerdicts.isEmpty(), layout + ": some device class has two options");
                assertNotEquals(firstChoices(device), firstChoices(adopted), layout);
            }
        }
    }

    /**
     * What an instance keeps: each memory kind's fresh verdicts under its own kind, and the earlier
     * verdicts of the classes (and kinds) this run did not decide.
     */
    @Test
    void keptVerdictsCarryTheirMemoryKindAndEarlierOnesStand() {
        Selector selector = selector("2x2");
        TrialSchedule device = InRunSelection.deviceTrialSchedule(selector);
        int c = 20;
        long[] nanos = new long[device.options(c)];
        java.util.Arrays.fill(nanos, 20_000);
        nanos[0] = 10_000;
        String won = decide(device, c, nanos);
        LearntPlans earlier = new LearntPlans(
                LearntPlans.FORMAT_VERSION,
                selector.inputs().fingerprint().id(),
                "x",
                List.of(
                        new LearntPlans.Verdict(c, MemoryKind.HOST, "native", 2e-3),
                        new LearntPlans.Verdict(c, MemoryKind.DEVICE, "knomial", 3e-3),
                        new LearntPlans.Verdict(c + 1, MemoryKind.DEVICE, "native", 4e-3)));
        List<LearntPlans.Verdict> kept = new ArrayList<>();
        assertFalse(InRunSelection.kept(null, MemoryKind.HOST, earlier, kept), "no host calls, nothing fresh");
        assertTrue(InRunSelection.kept(device, MemoryKind.DEVICE, earlier, kept), "a device class decided");
        assertEquals(
                List.of(
                        new LearntPlans.Verdict(c, MemoryKind.HOST, "native", 2e-3),
                        new LearntPlans.Verdict(c, MemoryKind.DEVICE, won, 10_000 * device.blockCalls(c) / 1e9),
                        new LearntPlans.Verdict(c + 1, MemoryKind.DEVICE, "native", 4e-3)),
                kept);
        assertEquals(
                null,
                new LearntPlans(
                                LearntPlans.FORMAT_VERSION,
                                selector.inputs().fingerprint().id(),
                                "x",
                                kept)
                        .problem(selector.inputs().fingerprint().id()));
    }
}
