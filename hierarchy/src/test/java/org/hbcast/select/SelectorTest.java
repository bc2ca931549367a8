package org.hbcast.select;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.hbcast.call.ElementType;
import org.hbcast.header.CallHeaders;
import org.hbcast.header.HeaderRelay;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.Plan;
import org.hbcast.schedule.TreeShape;
import org.hbcast.transport.shm.CallBoard;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.Candidates;
import org.hbcast.tuning.ClusterShape;
import org.hbcast.tuning.CostModel;
import org.hbcast.tuning.Fingerprint;
import org.hbcast.tuning.HostInfo;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.NodeCurve;
import org.hbcast.tuning.TimedSize;
import org.hbcast.tuning.TuningFixtures;
import org.hbcast.tuning.TuningInputs;
import org.hbcast.tuning.TuningJson;
import org.hbcast.tuning.TuningTable;
import org.junit.jupiter.api.Test;

class SelectorTest {
    private static final Choices AUTO = Choices.AUTO;
    private static final ClusterShape SHAPE = TuningFixtures.TWO_BY_TWO;
    private static final Path TABLE = Path.of("/tables/tuning-test.json");

    /** A host of two cores: four ranks of virtual nodes take every one. */
    private static final HostInfo TWO_CORES = new HostInfo("Test CPU 9000", 2, "", 0, "Open MPI 4.1.4");

    private static Selector modelOnly(Choices options, String layout, int cap) {
        return modelOnly(options, layout, cap, TuningFixtures.HOST);
    }

    private static Selector modelOnly(Choices options, String layout, int cap, HostInfo host) {
        ClusterShape shape = ClusterShape.parse(layout);
        return new Selector(options.planChoices(), shape, cap, TuningFixtures.modelOnly(Fingerprint.of(host, shape)));
    }

    private static Selector tabled(Choices options) throws Exception {
        return new Selector(options.planChoices(), SHAPE, Selector.AUTO_MAX_CHUNK_BYTES, tabledInputs());
    }

    private static TuningInputs tabledInputs() throws Exception {
        Fingerprint fp = TuningFixtures.fingerprint(SHAPE);
        byte[] table = TuningJson.mapper().writeValueAsBytes(TuningFixtures.table(SHAPE));
        TuningInputs inputs = TuningInputs.fromFiles(fp, TABLE, table, true, null, null, List.of());
        assertTrue(inputs.warnings().isEmpty(), inputs.warnings().toString());
        return inputs;
    }

    @Test
    void aJvmMakesTheSelectorOfTheSameInputsOnce() throws Exception {
        ClusterShape shape = ClusterShape.parse("3x4");
        TuningInputs inputs = TuningFixtures.modelOnly(TuningFixtures.fingerprint(shape));
        Selector first = Selector.of(AUTO.planChoices(), shape, 1 << 20, inputs);
        // Equal inputs made anew (as each create decodes them) give the same selector.
        assertSame(
                first,
                Selector.of(
                        AUTO.planChoices(),
                        ClusterShape.parse("3x4"),
                        1 << 20,
                        TuningFixtures.modelOnly(TuningFixtures.fingerprint(ClusterShape.parse("3x4")))));
        // Anything that changes the plans makes another.
        assertNotSame(first, Selector.of(AUTO.planChoices(), ClusterShape.parse("3x4 virtual"), 1 << 20, inputs));
        assertNotSame(first, Selector.of(AUTO.planChoices(), shape, 1 << 19, inputs));
        assertNotSame(first, Selector.of(AUTO.withAlgorithm(Algorithm.KNOMIAL).planChoices(), shape, 1 << 20, inputs));
        assertNotSame(first, Selector.of(AUTO.planChoices(), shape, 1 << 20, tabledInputs()));
        // And the remembered selector plans as a fresh one does.
        Selector fresh = new Selector(AUTO.planChoices(), shape, 1 << 20, inputs);
        for (int b = 0; b < 40; b++) {
            assertEquals(fresh.plan(1L << b).toString(), first.plan(1L << b).toString());
        }
    }

    @Test
    void withoutATableTheModelChoosesAtEverySize() {
        Selector s = modelOnly(AUTO, "2x2", 1 << 20);
        // Built-in figures: native's binomial tree over 4 ranks crosses the network twice, the hierarchy once.
        assertEquals(Algorithm.HIERARCHICAL, s.plan(1).algorithm());
        assertEquals(Algorithm.HIERARCHICAL, s.plan(16 << 20).algorithm());
        assertTrue(
                s.plan(16 << 20).reason().contains("cost model (built-in link figures"),
                s.plan(16 << 20).reason());
        assertTrue(s.plan(16 << 20).predictedSeconds() > 0);
    }

    @Test
    void onOneNodeHostMemoryNeverRunsNorTriesTheFlatTree() {
        for (int ranks = 2; ranks <= 16; ranks++) {
            for (HostInfo host : List.of(TWO_CORES, TuningFixtures.HOST)) {
                Selector s = modelOnly(AUTO, "1x" + ranks, Selector.AUTO_MAX_CHUNK_BYTES, host);
                for (int c = 0; c <= 30; c++) {
                    String where = "1x" + ranks + " on " + host.cpus() + " cores, 2^" + c + " B";
                    assertNotEquals(Algorithm.KNOMIAL, s.plan(1L << c).algorithm(), where);
                    for (Plan p : s.trialPlans(Math.min(c, TrialSchedule.CLASSES - 1))) {
                        assertNotEquals(Algorithm.KNOMIAL, p.algorithm(), where + ": tried " + p);
                    }
                }
                // Device memory keeps it: there it stages each rank's copy through the host.
                assertTrue(
                        Candidates.algorithms(s.shape(), MemoryKind.DEVICE).contains(Algorithm.KNOMIAL),
                        "1x" + ranks + " device");
            }
        }
        // One node x 2 past the header: the node's own stage (a ring of two is one hop, the fan-out's
        // copies), which the model had priced a hair over the flat tree.
        Plan two =
                modelOnly(AUTO, "1x2", Selector.AUTO_MAX_CHUNK_BYTES, TWO_CORES).plan(8 << 20);
        assertEquals(Algorithm.HIERARCHICAL, two.algorithm(), two.toString());
    }

    @Test
    void nodesOfOneRankHaveNoRing() {
        Selector s = modelOnly(AUTO, "1,1,1", 1 << 20);
        assertNotEquals(Algorithm.HIERARCHICAL, s.plan(16 << 20).algorithm());
    }

    @Test
    void optionsWinAndChunksNeverExceedTheSlotsOrTheMessage() {
        Choices o = AUTO.withAlgorithm(Algorithm.KNOMIAL)
                .withChunkBytes(1 << 22)
                .withRadix(4)
                .withInter(TreeShape.KNOMIAL);
        Selector s = modelOnly(o, "1x4", 1 << 20);
        Plan p = s.plan(1 << 24);
        assertEquals(Algorithm.KNOMIAL, p.algorithm());
        assertEquals(1 << 20, p.chunkBytes());
        assertEquals(4, p.radix());
        assertEquals("set by options (built-in link figures)", p.reason());
        assertEquals(8, s.plan(10).chunkBytes());
        Plan half = modelOnly(AUTO.withAlgorithm(Algorithm.HIERARCHICAL), "2x2", 1 << 20)
                .plan(1 << 24);
        assertEquals(Algorithm.HIERARCHICAL, half.algorithm());
        assertTrue(half.reason().startsWith("options fix the algorithm; the rest from the cost model"), half.reason());
    }

    @Test
    void theModelAloneKeepsTheSlotsAtOneMebibyte() {
        Selector s = modelOnly(AUTO, "1x8", Selector.AUTO_MAX_CHUNK_BYTES);
        List<Plan> plans = new ArrayList<>();
        for (int b = 0; b < 63; b++) {
            plans.add(s.plan(1L << b, MemoryKind.HOST));
            // Device calls cut at the CUDA ring's slot, and are priced so.
            Plan device = s.plan(1L << b, MemoryKind.DEVICE);
            assertTrue(
                    device.algorithm() == Algorithm.NATIVE
                            || device.chunkBytes() == Math.min(1L << b, Selector.AUTO_MAX_CHUNK_BYTES),
                    "device chunk of " + device);
        }
        for (int c = 0; c < TrialSchedule.CLASSES; c++) {
            plans.addAll(List.of(s.trialPlans(c)));
        }
        for (Plan p : plans) {
            assertTrue(
                    p.algorithm() == Algorithm.NATIVE || p.chunkBytes() <= Selector.MODEL_MAX_CHUNK_BYTES,
                    "chunk of " + p);
        }
        assertEquals(Selector.MODEL_MAX_CHUNK_BYTES, s.plan(1L << 34).chunkBytes());
    }

    @Test
    void plansReachTheLargestMessageACallCarriesAndNoFurther() {
        long largestElement = 0;
        for (ElementType t : ElementType.values()) {
            largestElement = Math.max(largestElement, t.bytes());
        }
        assertEquals(largestElement, Candidates.LARGEST_ELEMENT_BYTES);
        long largest = (long) Integer.MAX_VALUE * largestElement;
        assertEquals(largest, Candidates.LARGEST_MESSAGE_BYTES);
        Selector s = modelOnly(AUTO, "2x2", Selector.AUTO_MAX_CHUNK_BYTES);
        // Its trial class (bytes <= 2^c) is tried, and its bucket ([2^c, 2^(c+1))) planned.
        assertEquals(Candidates.LARGEST_TRIED_CLASS, TrialSchedule.sizeClass(largest));
        assertTrue(s.trialPlans(Candidates.LARGEST_TRIED_CLASS).length > 1);
        assertEquals(0, s.trialPlans(Candidates.LARGEST_TRIED_CLASS + 1).length);
        assertEquals(Candidates.LARGEST_SIZE_CLASS, Selector.bucket(largest));
        // A size past it (explain may ask) gets the last bucket's plan.
        assertSame(s.plan(largest), s.plan(Long.MAX_VALUE));
        assertSame(s.plan(largest, MemoryKind.DEVICE), s.plan(1L << 50, MemoryKind.DEVICE));
        assertNotSame(s.plan(largest), s.plan(1));
    }

    @Test
    void choosingAllocatesNoNewPlans() {
        Selector s = modelOnly(AUTO, "1x4", 1 << 20);
        assertSame(s.plan(1 << 20), s.plan((1 << 21) - 1));
        assertSame(s.plan(1), s.plan(1));
        assertSame(s.plan(100), s.plan(127));
    }

    @Test
    void theTableWinsInsideItsRangeAndInterpolatesOnALogScale() throws Exception {
        Selector s = tabled(AUTO);
        Plan exact = s.plan(1 << 20);
        assertEquals(Algorithm.HIERARCHICAL, exact.algorithm());
        assertEquals(256 << 10, exact.chunkBytes());
        assertTrue(
                exact.reason().contains(TABLE.toString()) && exact.reason().contains("measured at 1048576 B"),
                exact.reason());
        assertEquals(4e-4, exact.measuredSeconds(), 1e-12);
        Plan between = s.plan(4 << 20);
        assertEquals(512 << 10, between.chunkBytes(), "half way on a log scale between 256 KiB and 1 MiB");
        assertTrue(between.reason().contains("between measured"));
        Plan above = s.plan(1L << 30);
        assertEquals(1 << 20, above.chunkBytes());
        assertTrue(above.reason().contains("above the largest measured size"));
        TuningInputs inputs = tabledInputs();
        CostModel model =
                new CostModel(inputs.calibration(), inputs.fingerprint().host().cpus());
        assertEquals(
                model.best(
                                1024,
                                SHAPE,
                                MemoryKind.HOST,
                                Selector.MODEL_MAX_CHUNK_BYTES,
                                Algorithm.AUTO,
                                IntraNode.AUTO,
                                0,
                                0)
                        .algorithm(),
                s.plan(1024).algorithm(),
                "below the table the model chooses");
        assertEquals(
                128 << 10, tabled(AUTO.withChunkBytes(128 << 10)).plan(1 << 20).chunkBytes());
    }

    @Test
    void largeDeviceMessagesRideTheRingNotStagingAndTheHostTableNeverPlansThem() throws Exception {
        Selector s = tabled(AUTO);
        for (long m = 16L << 20; m < 1L << 40; m *= 5) {
            assertNotEquals(Algorithm.NATIVE, s.plan(m, MemoryKind.DEVICE).algorithm(), m + " B");
            assertTrue(s.plan(m, MemoryKind.DEVICE).reason().startsWith("cost model"), m + " B");
        }
    }

    @Test
    void explainSaysWhatAndWhy() throws Exception {
        Explanation e = tabled(AUTO).explain(3 << 20, MemoryKind.HOST);
        String text = e.text();
        assertTrue(text.contains("chosen:      hierarchical/ring, chunk"), text);
        assertTrue(text.contains("tuning table " + TABLE), text);
        assertTrue(text.contains("(tuning table)"), text);
        assertTrue(text.contains("model's best per algorithm"), text);
        assertEquals(2, e.nearby().size());
        assertEquals(4, e.alternatives().size(), "native, knomial, hierarchical over the ring and over the fan-out");
        assertTrue(Double.isFinite(e.measuredSeconds()) && Double.isFinite(e.predictedSeconds()));
        Explanation none = modelOnly(AUTO, "1x4", 1 << 20).explain(0, MemoryKind.HOST);
        assertTrue(Double.isNaN(none.measuredSeconds()));
    }

    @Test
    void manyNodesMoveLargeMessagesDownABandwidthOptimalScheduleAndExplainSaysWhy() {
        for (String layout : new String[] {"4,2,2", "8,3,3", "16x2", "64x4"}) {
            Selector s = modelOnly(AUTO.withAlgorithm(Algorithm.HIERARCHICAL), layout, 1 << 20);
            Plan big = s.plan(64 << 20);
            // Every leader's link carries each chunk once, not once per child of the k-nomial root.
            assertNotEquals(TreeShape.KNOMIAL, big.inter(), layout + ": " + big);
            String text = s.explain(64 << 20, MemoryKind.HOST).text();
            assertTrue(text.contains("leaders:     " + big.inter() + " among"), text);
            assertTrue(text.contains("carries each chunk 1.0 times (k-nomial radix"), text);
            assertTrue(text.contains("hierarchical/ring/chain") && text.contains("hierarchical/ring/two-tree"), text);
        }
        // With two nodes every shape is the one hop: the k-nomial tree, named as before.
        Plan two = modelOnly(AUTO, "2x2", 1 << 20).plan(64 << 20);
        assertEquals(TreeShape.KNOMIAL, two.inter());
        assertEquals("hierarchical/ring", Explanation.name(two.algorithm(), two.intra(), two.inter()));
        // Far more nodes than chunks: a chain's fill costs more than its bandwidth saves.
        Plan wide = modelOnly(AUTO.withAlgorithm(Algorithm.HIERARCHICAL), "1024x2", 1 << 20)
                .plan(64 << 10);
        assertNotEquals(TreeShape.CHAIN, wide.inter(), wide.toString());
    }

    @Test
    void theFlatTreeRunsTheShapeTheOptionNamesAndExplainSaysSo() {
        for (TreeShape shape : TreeShape.values()) {
            Selector s = modelOnly(AUTO.withAlgorithm(Algorithm.KNOMIAL).withInter(shape), "4,2,2", 1 << 20);
            for (long m = 1; m <= 1L << 26; m *= 8) {
                Plan p = s.plan(m);
                assertEquals(shape, p.inter(), shape + " at " + m);
                assertEquals(shape, p.leaderShape(), shape + " at " + m);
            }
            String text = s.explain(16 << 20, MemoryKind.HOST).text();
            assertTrue(text.contains("tree:        " + shape + " among 8 ranks"), text);
            assertTrue(
                    text.contains("chosen:      " + (shape == TreeShape.KNOMIAL ? "knomial," : "knomial/" + shape)),
                    text);
        }
        // Left open, the flat tree's shape is the model's choice: a chain or two trees for a large message over
        // eight ranks (each rank sends each chunk about once), never a shape other than the one send over two.
        Plan open = modelOnly(AUTO.withAlgorithm(Algorithm.KNOMIAL), "4,2,2", 1 << 20)
                .plan(64 << 20);
        assertNotEquals(TreeShape.KNOMIAL, open.inter(), open.toString());
        assertEquals(
                TreeShape.KNOMIAL,
                modelOnly(AUTO.withAlgorithm(Algorithm.KNOMIAL), "1x2", 1 << 20)
                        .plan(64 << 20)
                        .inter());
        // Native runs Open MPI's own tree, whatever the plan records.
        Plan nativePlan = new Plan(Algorithm.NATIVE, 1 << 20, 2, IntraNode.RING, TreeShape.CHAIN, "test", 0, 0);
        assertEquals(TreeShape.KNOMIAL, nativePlan.leaderShape());
    }

    @Test
    void theLeadersScheduleOptionFixesItAtEverySize() {
        for (TreeShape shape : TreeShape.values()) {
            Selector s = modelOnly(AUTO.withAlgorithm(Algorithm.HIERARCHICAL).withInter(shape), "4,2,2", 1 << 20);
            for (long m = 1; m <= 1L << 28; m *= 4) {
                assertEquals(shape, s.plan(m).inter(), shape + " at " + m);
            }
            assertTrue(
                    s.plan(1 << 20).reason().contains("the leaders' schedule"),
                    s.plan(1 << 20).reason());
        }
    }

    @Test
    void explainNamesTheCurvesAndWhetherTheyPriceThisLayout() {
        List<NodeCurve.ChunkCost> chunks = List.of(
                new NodeCurve.ChunkCost(32 << 10, 40e-6, List.of(new TimedSize(16 << 20, 20e-6))),
                new NodeCurve.ChunkCost(64 << 10, 150e-6, List.of(new TimedSize(16 << 20, 60e-6))));
        Calibration cal = TuningFixtures.calibrationWithNodeCurves(2)
                .withTwoLevel("2x2", List.of(new NodeCurve(IntraNode.RING, 2, chunks)));
        for (String layout : List.of("2x2", "3x2")) {
            ClusterShape shape = ClusterShape.parse(layout);
            TuningInputs inputs = new TuningInputs(
                    TuningFixtures.fingerprint(shape), null, null, cal, "calibration c.json", List.of());
            String text = new Selector(AUTO.planChoices(), shape, 1 << 20, inputs)
                    .explain(1 << 20, MemoryKind.HOST)
                    .text();
            assertTrue(
                    text.contains(
                            "node curve of the ring on 2 ranks: 9 chunk sizes, 64 B to 4 MiB (this layout's nodes)"),
                    text);
            assertTrue(
                    text.contains("two-level curve with the ring on 2x2: 2 chunk sizes, 32 KiB to 64 KiB ("
                            + (layout.equals("2x2")
                                    ? "this layout: the hierarchy's figures)"
                                    : "another layout: the levels are composed here)")),
                    text);
        }
    }

    @Test
    void chunksStayInRangeForEverySize() throws Exception {
        for (Selector s : List.of(
                tabled(AUTO),
                modelOnly(AUTO, "2x2", 1 << 20),
                modelOnly(AUTO, "8+3+3", 100),
                modelOnly(AUTO.withChunkBytes(64), "1x4", 64))) {
            for (long m = 0; m < 1L << 42; m = m * 3 + 1) {
                for (MemoryKind mem : MemoryKind.values()) {
                    int c = s.plan(m, mem).chunkBytes();
                    assertTrue(c >= 1 && c <= Math.max(m, 1) && c <= Selector.AUTO_MAX_CHUNK_BYTES, m + ": " + c);
                }
            }
        }
    }

    private static TuningInputs curves(ClusterShape shape) {
        return new TuningInputs(
                TuningFixtures.fingerprint(shape),
                null,
                null,
                TuningFixtures.calibrationWithNodeCurves(4),
                "test calibration",
                List.of());
    }

    @Test
    void nodesWithAFasterFanoutCurveGetTheFanoutAndConnectOnlyWhatThePlansUse() {
        ClusterShape shape = ClusterShape.parse("1x4");
        Selector s = new Selector(AUTO.planChoices(), shape, Selector.AUTO_MAX_CHUNK_BYTES, curves(shape));
        for (long m = 64 << 10; m <= 64 << 20; m *= 4) {
            Plan p = s.plan(m);
            assertEquals(Algorithm.HIERARCHICAL, p.algorithm(), m + " B");
            assertEquals(IntraNode.FANOUT, p.intra(), m + " B: the fixture's fan-out is twice as fast per chunk");
        }
        assertEquals(0, s.largestHostChunk(IntraNode.RING), "no host plan rides the ring: it need not be connected");
        assertTrue(s.largestHostChunk(IntraNode.FANOUT) > 0);
        Selector ring = new Selector(
                AUTO.withIntra(IntraNode.RING).planChoices(), shape, Selector.AUTO_MAX_CHUNK_BYTES, curves(shape));
        assertEquals(IntraNode.RING, ring.plan(16 << 20).intra());
        assertTrue(
                ring.plan(16 << 20).reason().contains("options fix the intra-node transport"),
                ring.plan(16 << 20).reason());
        assertEquals(0, ring.largestHostChunk(IntraNode.FANOUT));
        assertEquals(IntraNode.RING, s.plan(16 << 20, MemoryKind.DEVICE).intra(), "device buffers ride the CUDA ring");
    }

    @Test
    void aTableEntryNamesItsTransport() throws Exception {
        ClusterShape shape = ClusterShape.parse("1x4");
        Fingerprint fp = TuningFixtures.fingerprint(shape);
        TuningTable t = TuningFixtures.table(shape);
        List<TuningTable.Entry> entries = t.entries().stream()
                .map(e -> new TuningTable.Entry(
                        e.bytes(), e.algorithm(), e.chunkBytes(), e.radix(), e.seconds(), e.points(), IntraNode.FANOUT))
                .toList();
        byte[] json = TuningJson.mapper()
                .writeValueAsBytes(
                        new TuningTable(t.formatVersion(), fp, fp.id(), t.memory(), t.created(), null, entries));
        TuningInputs inputs = TuningInputs.fromFiles(fp, TABLE, json, true, null, null, List.of());
        assertTrue(inputs.warnings().isEmpty(), inputs.warnings().toString());
        Selector s = new Selector(AUTO.planChoices(), shape, Selector.AUTO_MAX_CHUNK_BYTES, inputs);
        assertEquals(IntraNode.FANOUT, s.plan(1 << 20).intra());
        assertEquals(
                IntraNode.RING,
                new Selector(AUTO.withIntra(IntraNode.RING).planChoices(), shape, Selector.AUTO_MAX_CHUNK_BYTES, inputs)
                        .plan(1 << 20)
                        .intra(),
                "options win over the table");
        com.fasterxml.jackson.databind.JsonNode tree = TuningJson.mapper().valueToTree(TuningFixtures.table(shape));
        for (com.fasterxml.jackson.databind.JsonNode e : tree.get("entries")) {
            ((com.fasterxml.jackson.databind.node.ObjectNode) e).remove("intra");
            e.get("points").forEach(pt -> ((com.fasterxml.jackson.databind.node.ObjectNode) pt).remove("intra"));
        }
        String old = TuningJson.mapper().writeValueAsString(tree);
        assertTrue(!old.contains("intra"), "a table written before the fan-out existed: " + old);
        Selector older = new Selector(
                AUTO.planChoices(),
                shape,
                Selector.AUTO_MAX_CHUNK_BYTES,
                TuningInputs.fromFiles(
                        fp, TABLE, old.getBytes(java.nio.charset.StandardCharsets.UTF_8), true, null, null, List.of()));
        assertEquals(IntraNode.RING, older.plan(1 << 20).intra(), "tables without a transport meant the ring");
    }

    @Test
    void theWarmUpRunsEachPlanThatMovesDataOnce() {
        for (String layout : new String[] {"4", "2x2", "8,3,3", "1,1"}) {
            Selector selector = modelOnly(AUTO, layout, Selector.AUTO_MAX_CHUNK_BYTES);
            java.util.List<Plan> plans = selector.distinctHostPlans();
            java.util.Set<String> kinds = new java.util.HashSet<>();
            for (Plan p : plans) {
                assertNotEquals(Algorithm.NATIVE, p.algorithm(), layout);
                assertTrue(kinds.add(Explanation.name(p) + "/" + p.radix()), layout + ": " + plans);
            }
            for (long bytes = 1; bytes <= 1L << 30; bytes *= 2) {
                Plan p = selector.plan(bytes);
                assertTrue(
                        p.algorithm() == Algorithm.NATIVE || kinds.contains(Explanation.name(p) + "/" + p.radix()),
                        layout + " " + bytes + ": " + p);
            }
        }
    }

    @Test
    void autoTriesEachAlgorithmAndTransportInTheRunUnlessTheOptionsOrATableDecide() throws Exception {
        for (HostInfo host : new HostInfo[] {TuningFixtures.HOST, TWO_CORES})
            for (String layout : new String[] {"4", "4 virtual", "2x2", "2x2 virtual", "8,3,3", "1,1"}) {
                ClusterShape shape = ClusterShape.parse(layout);
                Selector s = modelOnly(AUTO, layout, Selector.AUTO_MAX_CHUNK_BYTES, host);
                // Native, the flat tree past a single node (there only where the model chose it) and the
                // hierarchy over each transport (no node curves: both; on a single node the ring only where
                // the model chose it).
                for (int c = 0; c < TrialSchedule.CLASSES; c++) {
                    Plan[] plans = s.trialPlans(c);
                    Plan chosen = s.plan(1L << c);
                    int flatShapes = shape.nodes() > 1 || chosen.algorithm() == Algorithm.KNOMIAL ? 1 : 0;
                    boolean ringTried = shape.nodes() > 1
                            || (chosen.algorithm() == Algorithm.HIERARCHICAL && chosen.intra() == IntraNode.RING);
                    int hierarchies = shape.maxNodeSize() > 1 ? 1 + (ringTried ? 1 : 0) : 0;
                    boolean virtualNative = shape.virtual()
                            && shape.nodes() > 1
                            && shape.ranks() >= host.cpus()
                            && (1L << c) > Candidates.VIRTUAL_NATIVE_FROM;
                    if (c > Candidates.LARGEST_TRIED_CLASS || virtualNative) {
                        assertEquals(0, plans.length, layout + " class " + c);
                        continue;
                    }
                    java.util.Set<String> kinds = new java.util.HashSet<>();
                    long smallest = c == 0 ? 1 : (1L << (c - 1)) + 1;
                    for (Plan p : plans) {
                        assertTrue(kinds.add(Explanation.name(p)), layout + " class " + c + ": " + p);
                        assertTrue(p.chunkBytes() <= Math.max(64, 1L << c), layout + " class " + c + ": " + p);
                    }
                    // Native in every class: the model's figure for it is no reason not to time it. Past the
                    // header's sizes the flat tree in its two best shapes, across real nodes of more than two ranks.
                    boolean twoShapes = smallest > Candidates.SECOND_SHAPE_ABOVE
                            && shape.ranks() > 2
                            && shape.nodes() > 1
                            && !shape.virtual();
                    assertEquals(
                            1 + flatShapes + hierarchies + (twoShapes ? 1 : 0),
                            plans.length,
                            layout + " class " + c + ": " + kinds);
                    assertTrue(kinds.contains("native"), layout + " class " + c + ": " + kinds);
                    assertTrue(
                            plans.length <= TrialSchedule.MAX_OPTIONS - (smallest <= s.headerBytes() ? 1 : 0), layout);
                    long flat = java.util.Arrays.stream(plans)
                            .filter(p -> p.algorithm() == Algorithm.KNOMIAL)
                            .map(Plan::inter)
                            .distinct()
                            .count();
                    assertEquals(twoShapes ? 2 : flatShapes, flat, layout + " class " + c + ": " + kinds);
                    assertEquals(
                            ringTried && shape.maxNodeSize() > 1,
                            java.util.Arrays.stream(plans).anyMatch(Plan::usesRing),
                            layout + " class " + c + ": " + kinds);
                    // What the run may try, the transports are connected for.
                    for (Plan p : plans) {
                        assertTrue(!p.usesRing() || s.largestHostChunk(IntraNode.RING) >= p.chunkBytes(), layout);
                        assertTrue(!p.usesFanout() || s.largestHostChunk(IntraNode.FANOUT) >= p.chunkBytes(), layout);
                    }
                }
            }
        assertEquals(0, modelOnly(AUTO.withTrials(false), "2x2", 1 << 20).trialPlans(20).length);
        assertTrue(modelOnly(AUTO, "2x2", 1 << 20).trialPlans(20).length > 1);
        assertEquals(
                0,
                modelOnly(AUTO.withAlgorithm(Algorithm.HIERARCHICAL), "2x2", 1 << 20)
                        .trialPlans(20)
                        .length);
        assertEquals(0, modelOnly(AUTO, "1", 1 << 20).trialPlans(20).length);
        Plan[] fanoutOnly =
                modelOnly(AUTO.withIntra(IntraNode.FANOUT), "2x2", 1 << 20).trialPlans(20);
        assertTrue(java.util.Arrays.stream(fanoutOnly).noneMatch(Plan::usesRing));
        assertTrue(java.util.Arrays.stream(fanoutOnly).anyMatch(Plan::usesFanout));
        // A table governs the sizes it measured; below them the run still tries.
        Selector tabled = tabled(AUTO);
        long first = TuningFixtures.table(SHAPE).entries().get(0).bytes();
        assertEquals(0, tabled.trialPlans(TrialSchedule.sizeClass(first) + 1).length);
        if (first > 4) {
            assertTrue(tabled.trialPlans(1).length > 1);
        }
    }

    @Test
    void onVirtualNodesThatTakeEveryCoreAutoRunsNativeUntriedFromTheHeadersCapacity() {
        assertEquals(CallBoard.INLINE_BYTES, Candidates.VIRTUAL_NATIVE_FROM);
        for (String layout : new String[] {"2x2 virtual", "2,1,2 virtual", "8,3,3 virtual", "1,1 virtual"}) {
            Selector s = modelOnly(AUTO, layout, Selector.AUTO_MAX_CHUNK_BYTES, TWO_CORES);
            for (long size = Candidates.VIRTUAL_NATIVE_FROM; size <= 1L << 36; size = size * 3 / 2) {
                Plan p = s.plan(size);
                assertEquals(Algorithm.NATIVE, p.algorithm(), layout + " " + size + ": " + p);
                assertTrue(p.reason().contains("virtual nodes share one host"), p.reason());
            }
            assertTrue(s.trialPlans(TrialSchedule.sizeClass(Candidates.VIRTUAL_NATIVE_FROM)).length > 1, layout);
            assertEquals(0, s.trialPlans(TrialSchedule.sizeClass(Candidates.VIRTUAL_NATIVE_FROM + 1)).length, layout);
            // Forced plans stay forced; device memory keeps the model.
            Selector forced = modelOnly(AUTO.withAlgorithm(Algorithm.HIERARCHICAL), layout, 1 << 20, TWO_CORES);
            assertEquals(Algorithm.HIERARCHICAL, forced.plan(8L << 20).algorithm(), layout);
            assertTrue(!s.plan(8L << 20, MemoryKind.DEVICE).reason().contains("virtual nodes share one host"));
        }
        // Real nodes and a single node are not virtual nodes of one host.
        for (String layout : new String[] {"2x2", "4", "4 virtual"}) {
            Selector s = modelOnly(AUTO, layout, Selector.AUTO_MAX_CHUNK_BYTES, TWO_CORES);
            assertTrue(!s.plan(8L << 20).reason().contains("virtual nodes share one host"), layout);
            assertTrue(s.trialPlans(TrialSchedule.sizeClass(8L << 20)).length > 1, layout);
        }
        // Virtual nodes whose ranks leave a core of the host over try their plans as real nodes do; one
        // rank fewer than the cores is enough, as many as the cores is not.
        for (String layout : new String[] {"2x2 virtual", "8,3,3 virtual", "8,7 virtual"}) {
            ClusterShape shape = ClusterShape.parse(layout);
            for (int cpus : new int[] {shape.ranks(), shape.ranks() + 1, 64}) {
                HostInfo host = new HostInfo("Test CPU 9000", cpus, "", 0, "Open MPI 4.1.4");
                Selector s = modelOnly(AUTO, layout, Selector.AUTO_MAX_CHUNK_BYTES, host);
                boolean spare = cpus > shape.ranks();
                // Up to the largest message a call carries (the class above is tried too).
                for (long size = Candidates.VIRTUAL_NATIVE_FROM;
                        size < 1L << Candidates.LARGEST_SIZE_CLASS;
                        size *= 4) {
                    String where = layout + " on " + cpus + " cpus, " + size + " B";
                    assertEquals(!spare, s.plan(size).reason().contains("virtual nodes share one host"), where);
                    assertEquals(
                            spare,
                            s.trialPlans(TrialSchedule.sizeClass(size) + 1).length > 1,
                            where + ": " + java.util.Arrays.toString(s.trialPlans(TrialSchedule.sizeClass(size) + 1)));
                }
            }
        }
    }

    /** Open MPI's bcast is the plan and the trials' first option at {@code size}, with a plan to try against it. */
    private static void assertNativeFirst(Selector s, TrialSchedule trials, Plan p, long size, String where) {
        assertEquals(Algorithm.NATIVE, p.algorithm(), where);
        int c = TrialSchedule.sizeClass(size);
        assertTrue(trials.tries(c), where + ": the plans are still tried");
        assertEquals("native", trials.label(c, trials.option(c)), where + ": native first");
        assertTrue(
                java.util.Arrays.stream(s.trialPlans(c)).anyMatch(t -> t.algorithm() != Algorithm.NATIVE),
                where + ": a plan to try against it");
    }

    /**
     * Real nodes whose ranks outnumber the cores they may run on, across a network about as fast as
     * their memory (the 2-host bed's measured link), start from Open MPI's bcast past the header's
     * first network message, tried against the plans; not across a slow network (a shaped bed's), nor
     * where the cores are unknown or enough. Between two such nodes the header carries every message
     * it can untried, up to {@link Candidates#CROWDED_NETWORK_HEADER_BYTES}, and native comes first
     * past that.
     */
    @Test
    void onCrowdedHostsAcrossAFastNetworkNativeIsTheIncumbentPastTheHeadersFirstMessage() {
        for (String layout : new String[] {"2x2", "4,2,2", "2x2 virtual"}) {
            ClusterShape shape = ClusterShape.parse(layout);
            for (double network : new double[] {2.06e9, 1.17e8}) {
                for (int cores : new int[] {0, 1, shape.maxNodeSize()}) {
                    TuningInputs inputs = TuningFixtures.modelOnly(TuningFixtures.fingerprint(shape))
                            .withLink(
                                    new LinkCalibration(
                                            LinkKind.NETWORK, 24e-6, network, LinkCalibration.MEASURED_AT_CREATE),
                                    "measured")
                            .withUsableCores(cores);
                    Selector s = new Selector(AUTO.planChoices(), shape, Selector.AUTO_MAX_CHUNK_BYTES, inputs);
                    TrialSchedule trials = InRunSelection.trialSchedule(s, true);
                    boolean crowded = !shape.virtual() && cores == 1 && network > 1e9;
                    // Between two such nodes the header carries all it can untried, before native.
                    long untried = shape.virtual()
                            ? s.headerBytes()
                            : crowded && shape.nodes() == 2
                                    ? Candidates.CROWDED_NETWORK_HEADER_BYTES
                                    : HeaderRelay.FIRST_PAYLOAD;
                    if (!shape.virtual()) {
                        assertEquals(
                                crowded && shape.nodes() == 2
                                        ? Candidates.CROWDED_NETWORK_HEADER_BYTES
                                        : CallHeaders.NETWORK_INLINE_BYTES,
                                s.headerBytes(),
                                layout + ", " + network + " B/s, " + cores + " cores: the header's capacity");
                    }
                    for (long size = 1 << 10; size <= 1L << 30; size *= 2) {
                        String where = layout + ", " + network + " B/s, " + cores + " cores, " + size + " B";
                        Plan p = s.plan(size);
                        boolean first = crowded && size > Candidates.CROWDED_NATIVE_ABOVE;
                        assertEquals(first, p.reason().contains("outnumber the cores"), where + ": " + p.reason());
                        assertEquals(size <= untried, trials.inlines(size), where + ": rides in the header untried");
                        if (first && size > untried) {
                            assertNativeFirst(s, trials, p, size, where);
                        }
                    }
                }
            }
        }
    }

    /**
     * Virtual nodes whose ranks leave a core over start from Open MPI's bcast from 4 MiB, and the trials
     * time the plans against it (it is their incumbent); below it, on real nodes and where the ranks take
     * every core, the rule does not apply.
     */
    @Test
    void onVirtualNodesWithACoreToSpareNativeIsTheIncumbentFromFourMebibytes() {
        for (String layout : new String[] {"2x2 virtual", "8x8 virtual", "4,2,2 virtual", "2x2", "8x8", "4"}) {
            ClusterShape shape = ClusterShape.parse(layout);
            for (int cpus : new int[] {shape.ranks(), shape.ranks() + 1, 64}) {
                HostInfo host = new HostInfo("Test CPU 9000", cpus, "", 0, "Open MPI 4.1.4");
                Selector s = modelOnly(AUTO, layout, Selector.AUTO_MAX_CHUNK_BYTES, host);
                TrialSchedule trials = InRunSelection.trialSchedule(s, true);
                boolean spare = shape.virtual() && shape.nodes() > 1 && cpus > shape.ranks();
                for (long size = 1 << 20; size <= 1L << Candidates.LARGEST_SIZE_CLASS; size *= 2) {
                    String where = layout + " on " + cpus + " cpus, " + size + " B";
                    Plan p = s.plan(size);
                    boolean first = spare && size >= Candidates.SPARE_CORES_NATIVE_FROM;
                    assertEquals(first, p.reason().contains("a core to spare"), where + ": " + p.reason());
                    if (first) {
                        assertNativeFirst(s, trials, p, size, where);
                    }
                    assertNotEquals(
                            Algorithm.NATIVE,
                            s.plan(size, MemoryKind.DEVICE).algorithm(),
                            where + ": device memory never runs native");
                }
            }
        }
    }
}
