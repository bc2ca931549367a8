package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.hbcast.header.CallHeaders;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.plan.PlanChoices;
import org.hbcast.schedule.TreeShape;
import org.junit.jupiter.api.Test;

/** The candidate policy, over every small layout, memory kind and restriction the options can make. */
class CandidatesTest {
    private static final List<TreeShape> SHAPES_OR_OPEN =
            Arrays.asList(null, TreeShape.KNOMIAL, TreeShape.CHAIN, TreeShape.TWO_TREE);

    /** Every layout of 1 to 4 nodes of 1 to 4 ranks each (sizes ascending: the order matters to no rule), real and virtual. */
    private static List<ClusterShape> layouts() {
        return layouts(4);
    }

    private static List<ClusterShape> layouts(int most) {
        List<ClusterShape> out = new ArrayList<>();
        for (int nodes = 1; nodes <= most; nodes++) {
            int[] sizes = new int[nodes];
            Arrays.fill(sizes, 1);
            while (true) {
                List<Integer> list = Arrays.stream(sizes).boxed().toList();
                out.add(new ClusterShape(list, false));
                if (nodes > 1) {
                    out.add(new ClusterShape(list, true));
                }
                int i = nodes - 1;
                while (i >= 0 && sizes[i] == most) {
                    i--;
                }
                if (i < 0) {
                    break;
                }
                sizes[i]++;
                for (int j = i + 1; j < nodes; j++) {
                    sizes[j] = sizes[i];
                }
            }
        }
        out.add(new ClusterShape(List.of(8, 3, 3), false));
        out.add(new ClusterShape(List.of(16), false));
        return out;
    }

    private static final long[] SIZES = {0, 1, 8191, 8192, 65_536, (1 << 20) + 7, 64L << 20};
    private static final int[] MAX_CHUNKS = {8192, 1 << 20};

    @Test
    void everySearchHoldsOnlyWhatTheLayoutMemoryAndOptionsAllow() {
        int searches = 0;
        for (ClusterShape shape : layouts(3)) {
            for (MemoryKind memory : MemoryKind.values()) {
                for (Algorithm algorithm : Algorithm.values()) {
                    for (IntraNode intra : IntraNode.values()) {
                        for (TreeShape inter : SHAPES_OR_OPEN) {
                            for (long bytes : SIZES) {
                                for (int maxChunk : MAX_CHUNKS) {
                                    for (int chunk : new int[] {0, 4096}) {
                                        for (int radix : new int[] {0, 3}) {
                                            for (boolean untimed : new boolean[] {false, true}) {
                                                check(
                                                        shape, memory, algorithm, intra, inter, bytes, maxChunk, chunk,
                                                        radix, untimed);
                                                searches++;
                                            }
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        assertTrue(searches > 10_000, "searched " + searches);
    }

    private static void check(
            ClusterShape shape,
            MemoryKind memory,
            Algorithm algorithm,
            IntraNode intra,
            TreeShape inter,
            long bytes,
            int maxChunk,
            int chunk,
            int radix,
            boolean untimed) {
        List<Candidates.Candidate> all =
                Candidates.of(bytes, shape, memory, maxChunk, algorithm, intra, inter, chunk, radix, untimed);
        Supplier<String> where = () -> shape + " " + memory + " " + algorithm + "/" + intra + "/" + inter + " " + bytes
                + " B, max " + maxChunk + ", chunk " + chunk + ", radix " + radix + (untimed ? ", untimed" : "");
        assertFalse(all.isEmpty(), where);
        assertEquals(all.size(), new HashSet<>(all).size(), () -> where.get() + ": a candidate twice");
        Set<Algorithm> seen = new HashSet<>();
        for (Candidates.Candidate c : all) {
            Supplier<String> what = () -> where.get() + ": " + c;
            Algorithm a = c.algorithm();
            seen.add(a);
            assertTrue(a != Algorithm.AUTO, what);
            assertTrue(
                    algorithm == Algorithm.AUTO
                            ? Candidates.algorithms(shape, memory).contains(a)
                            : a == algorithm,
                    what);
            assertTrue(
                    a != Algorithm.HIERARCHICAL || shape.maxNodeSize() > 1 || algorithm == Algorithm.HIERARCHICAL,
                    what);
            // The fan-out: the hierarchy's, on host memory, on nodes of more than one rank (or asked for).
            if (c.intra() == IntraNode.FANOUT) {
                assertEquals(Algorithm.HIERARCHICAL, a, what);
                assertEquals(MemoryKind.HOST, memory, what);
                assertTrue(intra == IntraNode.FANOUT || shape.maxNodeSize() > 1, what);
            }
            if (intra != IntraNode.AUTO && a == Algorithm.HIERARCHICAL) {
                assertEquals(memory == MemoryKind.DEVICE ? IntraNode.RING : intra, c.intra(), what);
            }
            // The leaders' schedule: asked for, or the k-nomial tree where no other shape differs.
            if (inter != null && a != Algorithm.NATIVE) {
                assertEquals(inter, c.inter(), what);
            }
            int participants = a == Algorithm.HIERARCHICAL ? shape.nodes() : shape.ranks();
            if (inter == null && participants <= 2 || a == Algorithm.NATIVE) {
                assertEquals(TreeShape.KNOMIAL, c.inter(), what);
            }
            // Chunks: the one asked for, else within the message and maxChunk, the eager limit on an untimed network.
            assertTrue(c.chunkBytes() >= 1 && c.chunkBytes() <= maxChunk, what);
            if (chunk > 0) {
                assertEquals(Math.min(chunk, maxChunk), c.chunkBytes(), what);
            } else {
                assertTrue(c.chunkBytes() <= Math.max(bytes, 1) || c.chunkBytes() == maxChunk, what);
                if (untimed && a != Algorithm.NATIVE) {
                    assertTrue(c.chunkBytes() <= Candidates.NETWORK_EAGER_CHUNK_BYTES, what);
                }
            }
            // Radices: the one asked for, else 2 to MAX_RADIX, more than 2 only where the tree differs.
            if (radix > 0) {
                assertEquals(radix, c.radix(), what);
            } else {
                assertTrue(c.radix() >= 2 && c.radix() <= Candidates.MAX_RADIX, what);
                assertTrue(c.radix() == 2 || (c.inter() == TreeShape.KNOMIAL && c.radix() < participants), what);
            }
        }
        if (algorithm == Algorithm.AUTO) {
            assertEquals(Set.copyOf(Candidates.algorithms(shape, memory)), seen, where);
        }
        assertTrue(
                all.stream().filter(c -> c.algorithm() == Algorithm.NATIVE).count() <= 1,
                () -> where.get() + ": native cuts its own chunks");
    }

    @Test
    void algorithmsOfferNativeTheFlatTreeButOnOneNodesHostMemoryAndTheHierarchyWhereANodeHasARing() {
        for (ClusterShape shape : layouts()) {
            for (MemoryKind memory : MemoryKind.values()) {
                // Native on device memory is staging through the host: a candidate too.
                List<Algorithm> want = new ArrayList<>();
                want.add(Algorithm.NATIVE);
                if (shape.nodes() > 1 || memory == MemoryKind.DEVICE) {
                    want.add(Algorithm.KNOMIAL);
                }
                if (shape.maxNodeSize() > 1) {
                    want.add(Algorithm.HIERARCHICAL);
                }
                assertEquals(want, Candidates.algorithms(shape, memory), shape + " " + memory);
            }
        }
    }

    @Test
    void chunksArePowersOfTwoFromTheSmallestUpToTheMessageAndTheWholeMessageWhereItFits() {
        for (int maxChunk = 64; maxChunk <= 16 << 20; maxChunk *= 2) {
            for (long bytes = 0; bytes <= 1L << 26; bytes = bytes < 2 ? bytes + 1 : bytes * 3 / 2) {
                for (long m : new long[] {bytes - 1, bytes, bytes + 1}) {
                    if (m < 0) {
                        continue;
                    }
                    List<Integer> got = Candidates.chunks(m, maxChunk);
                    List<Integer> want = new ArrayList<>();
                    for (long c = Candidates.MIN_CHUNK; c <= maxChunk && c < m; c *= 2) {
                        want.add((int) c);
                    }
                    want.add(m <= maxChunk ? (int) Math.max(m, 1) : maxChunk);
                    if (m > maxChunk && want.size() > 1) {
                        want.remove(want.size() - 1);
                    }
                    assertEquals(want, got, m + " B, max " + maxChunk);
                }
            }
        }
    }

    /**
     * The header carries the board's whole capacity only on one host whose ranks take every core; a
     * host with a core over keeps the smaller limit, a network its own, and an unknown core count
     * counts as cores over.
     */
    @Test
    void theHeaderCarriesTheBoardsCapacityOnlyOnOneHostWhoseRanksTakeEveryCore() {
        assertTrue(Candidates.SPARE_CORES_HEADER_BYTES < CallHeaders.inlineBytes(true));
        for (ClusterShape shape : layouts()) {
            for (int cpus = 0; cpus <= shape.ranks() + 2; cpus++) {
                for (boolean carriesAll : new boolean[] {false, true}) {
                    long expected = shape.crossesNetwork()
                            ? carriesAll ? Candidates.CROWDED_NETWORK_HEADER_BYTES : CallHeaders.NETWORK_INLINE_BYTES
                            : cpus > 0 && shape.ranks() >= cpus
                                    ? CallHeaders.inlineBytes(true)
                                    : Candidates.SPARE_CORES_HEADER_BYTES;
                    String where = shape + ", " + cpus + " cores" + (carriesAll ? ", carrying all" : "");
                    assertEquals(expected, Candidates.headerBytes(shape, cpus, carriesAll), where);
                    // Whatever rides in a header fits the board it lands on.
                    assertTrue(Candidates.headerBytes(shape, cpus, carriesAll) <= CallHeaders.inlineBytes(true), where);
                }
            }
        }
        // The crowded machines measured: one node x 4 and virtual 2+2 on 2 cores; a host of 16 with 4 ranks is not.
        assertEquals(4 << 20, Candidates.headerBytes(ClusterShape.parse("4"), 2, false));
        assertEquals(4 << 20, Candidates.headerBytes(ClusterShape.parse("2x2 virtual"), 2, false));
        assertEquals(512 << 10, Candidates.headerBytes(ClusterShape.parse("4"), 16, false));
        assertEquals(CallHeaders.NETWORK_INLINE_BYTES, Candidates.headerBytes(ClusterShape.parse("2x2"), 2, false));
    }

    @Test
    void eagerChunksReplaceWhatIsPastTheLimitByTheLimitOnce() {
        int e = Candidates.NETWORK_EAGER_CHUNK_BYTES;
        assertEquals(
                List.of(8192, 16384, 32768, e), Candidates.eagerChunks(List.of(8192, 16384, 32768, 65536, 131072)));
        assertEquals(List.of(8192, 40000), Candidates.eagerChunks(List.of(8192, 40000)));
        assertEquals(List.of(e), Candidates.eagerChunks(List.of(1 << 20)));
    }

    @Test
    void radicesBeyondTwoOnlyWhereTheTreeHasMoreParticipants() {
        for (ClusterShape shape : layouts()) {
            for (Algorithm a : Algorithm.values()) {
                int participants =
                        a == Algorithm.HIERARCHICAL ? shape.nodes() : a == Algorithm.KNOMIAL ? shape.ranks() : 1;
                for (int max = 2; max <= 8; max++) {
                    List<Integer> want = new ArrayList<>();
                    for (int k = 2; k <= max && (k == 2 || k < participants); k++) {
                        want.add(k);
                    }
                    assertEquals(want, Candidates.radices(a, shape, max), shape + " " + a + " max " + max);
                }
                assertEquals(Candidates.radices(a, shape, Candidates.MAX_RADIX), Candidates.radices(a, shape));
            }
        }
    }

    @Test
    void intraAndInterOfferEveryChoiceOnlyWhereTheyDiffer() {
        for (ClusterShape shape : layouts()) {
            assertEquals(
                    shape.maxNodeSize() > 1 ? List.of(IntraNode.RING, IntraNode.FANOUT) : List.of(IntraNode.RING),
                    Candidates.intra(shape, MemoryKind.HOST, IntraNode.AUTO));
            assertEquals(List.of(IntraNode.RING), Candidates.intra(shape, MemoryKind.DEVICE, IntraNode.AUTO));
            assertEquals(List.of(IntraNode.RING), Candidates.intra(shape, MemoryKind.DEVICE, IntraNode.FANOUT));
            assertEquals(List.of(IntraNode.FANOUT), Candidates.intra(shape, MemoryKind.HOST, IntraNode.FANOUT));
            List<TreeShape> all = List.of(TreeShape.KNOMIAL, TreeShape.CHAIN, TreeShape.TWO_TREE);
            assertEquals(shape.nodes() > 2 ? all : List.of(TreeShape.KNOMIAL), Candidates.inter(shape, null));
            assertEquals(shape.ranks() > 2 ? all : List.of(TreeShape.KNOMIAL), Candidates.flat(shape, null));
            for (TreeShape s : all) {
                assertEquals(List.of(s), Candidates.inter(shape, s));
                assertEquals(List.of(s), Candidates.flat(shape, s));
            }
        }
    }

    @Test
    void nativeRunsUntriedOnlyOnVirtualNodesThatTakeEveryCorePastTheHeader() {
        long from = Candidates.VIRTUAL_NATIVE_FROM;
        for (ClusterShape shape : layouts()) {
            for (Algorithm a : Algorithm.values()) {
                for (int cpus : new int[] {1, 2, 4, 64}) {
                    for (long size : new long[] {0, from - 1, from, from * 4}) {
                        boolean want = a == Algorithm.AUTO
                                && shape.virtual()
                                && shape.nodes() > 1
                                && shape.ranks() >= cpus
                                && size >= from;
                        assertEquals(
                                want,
                                Candidates.nativeOnVirtualNodes(a, shape, cpus, size),
                                shape + " " + a + " " + cpus + " " + size);
                    }
                }
            }
        }
    }

    @Test
    void nativeComesFirstOnlyOnVirtualNodesWithACoreToSpareFromFourMebibytes() {
        long from = Candidates.SPARE_CORES_NATIVE_FROM;
        assertEquals(4L << 20, from);
        for (ClusterShape shape : layouts()) {
            for (Algorithm a : Algorithm.values()) {
                for (int cpus : new int[] {1, 2, 4, 5, 16, 64}) {
                    for (long size : new long[] {0, 1 << 20, from - 1, from, from * 4, 1L << 36}) {
                        boolean want = a == Algorithm.AUTO
                                && shape.virtual()
                                && shape.nodes() > 1
                                && shape.ranks() < cpus
                                && size >= from;
                        String where = shape + " " + a + " " + cpus + " cpus " + size;
                        assertEquals(want, Candidates.nativeFirstWithSpareCores(a, shape, cpus, size), where);
                        // Never both: native untried where the ranks take every core, first where one is over.
                        assertFalse(want && Candidates.nativeOnVirtualNodes(a, shape, cpus, size), where);
                    }
                }
            }
        }
    }

    /**
     * On crowded real nodes across a fast network Open MPI's bcast comes first past the header's
     * first network message, and between two such nodes the header carries all it can untried.
     */
    @Test
    void nativeComesFirstOnCrowdedRealNodesAcrossAFastNetworkPastTheHeadersFirstMessage() {
        long above = Candidates.CROWDED_NATIVE_ABOVE;
        assertEquals(32 << 10, above);
        Calibration builtIn = Calibration.builtIn();
        double memory = builtIn.link(LinkKind.SHARED_MEMORY).bytesPerSecond();
        // The 2-host bed's measured link, one just fast enough, one just too slow, and 1 Gbit/s.
        double[] networks = {2.06e9, memory * Candidates.FAST_NETWORK_SHARE, memory * 0.24, 1.25e8};
        for (double network : networks) {
            Calibration cal = builtIn.withLink(new LinkCalibration(LinkKind.NETWORK, 24e-6, network, "measured"));
            boolean fast = network >= Candidates.FAST_NETWORK_SHARE * memory;
            for (ClusterShape real : layouts()) {
                for (ClusterShape shape : List.of(real, new ClusterShape(real.nodeSizes(), true))) {
                    for (Algorithm a : Algorithm.values()) {
                        for (int cores : new int[] {0, 1, 2, 3, 4, 64}) {
                            boolean crowdedFast = a == Algorithm.AUTO
                                    && shape.nodes() > 1
                                    && !shape.virtual()
                                    && cores > 0
                                    && shape.maxNodeSize() > cores
                                    && fast;
                            String layout = shape + " " + a + " " + cores + " cores " + network + " B/s";
                            assertEquals(
                                    crowdedFast && shape.nodes() == 2,
                                    Candidates.headerCarriesAllUntried(a, shape, cores, cal),
                                    layout + ": the header carries all it can untried");
                            for (long size : new long[] {0, above, above + 1, 1 << 20, 1L << 36}) {
                                assertEquals(
                                        crowdedFast && size > above,
                                        Candidates.nativeFirstOnCrowdedHosts(a, shape, cores, cal, size),
                                        layout + " " + size);
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void aClassIsTriedOnlyUnderAutoWithTrialsBelowTheTableAndTheLargestClass() {
        ClusterShape real = ClusterShape.parse("2x2");
        PlanChoices auto = new PlanChoices(Algorithm.AUTO, IntraNode.AUTO, null, 0, 0, true);
        for (int c = 0; c < 64; c++) {
            assertEquals(
                    c <= Candidates.LARGEST_TRIED_CLASS,
                    Candidates.tried(auto, real, 2, c, Long.MAX_VALUE),
                    "class " + c);
            assertEquals(
                    c < 20, Candidates.tried(auto, real, 2, c, 1L << 20), "class " + c + " under a table from 1 MiB");
            assertFalse(Candidates.tried(
                    new PlanChoices(Algorithm.AUTO, IntraNode.AUTO, null, 0, 0, false), real, 2, c, Long.MAX_VALUE));
            assertFalse(Candidates.tried(
                    new PlanChoices(Algorithm.HIERARCHICAL, IntraNode.AUTO, null, 0, 0, true),
                    real,
                    2,
                    c,
                    Long.MAX_VALUE));
            assertFalse(Candidates.tried(auto, ClusterShape.parse("1x1"), 2, c, Long.MAX_VALUE));
            // Virtual nodes taking every core: a class is tried while its largest size is below the header's capacity.
            ClusterShape virtual = ClusterShape.parse("2x2 virtual");
            boolean below = (1L << c) - 1 < Candidates.VIRTUAL_NATIVE_FROM;
            assertEquals(
                    below && c <= Candidates.LARGEST_TRIED_CLASS,
                    Candidates.tried(auto, virtual, 4, c, Long.MAX_VALUE),
                    "class " + c);
            assertEquals(
                    c <= Candidates.LARGEST_TRIED_CLASS,
                    Candidates.tried(auto, virtual, 8, c, Long.MAX_VALUE),
                    "class " + c + " with cores over");
        }
    }

    @Test
    void theTrialsTimeEveryKindAcrossNodesAndLeaveTheRingOutOnOneNodeUnlessChosen() {
        for (TrialKindsCase c : trialKindsCases()) {
            List<Candidates.Candidate> kinds = c.kinds(false);
            assertEquals(Algorithm.NATIVE, kinds.get(0).algorithm(), c + ": native first, always");
            // (The cases' plans use the fan-out only: a chosen ring with curves is no real case.)
            if (!c.curves() || c.chosen() != Algorithm.HIERARCHICAL || c.chosenIntra() == IntraNode.FANOUT) {
                assertTrue(kinds.stream().anyMatch(c::isChosen), c + ": the incumbent among them, always");
            }
            for (Candidates.Candidate k : kinds) {
                if (c.shape().nodes() == 1 && !c.isChosen(k)) {
                    assertTrue(k.algorithm() == Algorithm.NATIVE || k.intra() == IntraNode.FANOUT, c + ": " + k);
                }
                if (c.curves() && k.algorithm() == Algorithm.HIERARCHICAL) {
                    assertEquals(IntraNode.FANOUT, k.intra(), c + ": with curves only what plans use");
                }
            }
            if (c.shape().nodes() > 1) {
                int want = 2 + (c.shape().maxNodeSize() > 1 ? (c.curves() ? 1 : 2) : 0);
                assertEquals(want, kinds.size(), c + ": " + kinds);
            }
        }
    }

    @Test
    void onCrowdedHostsAcrossAFastNetworkTheTrialsLeaveTheHierarchyOutUnlessChosen() {
        for (TrialKindsCase c : trialKindsCases()) {
            List<Candidates.Candidate> crowded = c.kinds(true);
            List<Candidates.Candidate> want = c.kinds(false).stream()
                    .filter(k -> k.algorithm() != Algorithm.HIERARCHICAL || c.isChosen(k))
                    .toList();
            assertEquals(want, crowded, c.toString());
            assertEquals(Algorithm.NATIVE, crowded.get(0).algorithm(), c + ": native first, always");
        }
        for (Algorithm a : Algorithm.values()) {
            for (IntraNode t : List.of(IntraNode.RING, IntraNode.FANOUT)) {
                assertFalse(Candidates.leftOutOnCrowdedHosts(false, Algorithm.NATIVE, IntraNode.RING, a, t));
                assertEquals(
                        a == Algorithm.HIERARCHICAL,
                        Candidates.leftOutOnCrowdedHosts(true, Algorithm.NATIVE, IntraNode.RING, a, t),
                        a + "/" + t);
                assertEquals(
                        a == Algorithm.HIERARCHICAL && t != IntraNode.FANOUT,
                        Candidates.leftOutOnCrowdedHosts(true, Algorithm.HIERARCHICAL, IntraNode.FANOUT, a, t),
                        a + "/" + t + " with the fan-out chosen");
            }
        }
    }

    /** A layout, the model's choice and whether node curves exist: what {@link Candidates#trialKinds} is asked. */
    private record TrialKindsCase(ClusterShape shape, Algorithm chosen, IntraNode chosenIntra, boolean curves) {
        List<Candidates.Candidate> kinds(boolean crowded) {
            return Candidates.trialKinds(
                    shape, IntraNode.AUTO, t -> t == IntraNode.FANOUT, curves, chosen, chosenIntra, crowded);
        }

        boolean isChosen(Candidates.Candidate k) {
            return k.algorithm() == chosen && (chosen != Algorithm.HIERARCHICAL || k.intra() == chosenIntra);
        }

        @Override
        public String toString() {
            return shape + " chosen " + chosen + "/" + chosenIntra + (curves ? " with curves" : "");
        }
    }

    /** Every layout with every choice the model can make, with and without node curves. */
    private static List<TrialKindsCase> trialKindsCases() {
        List<TrialKindsCase> cases = new ArrayList<>();
        for (ClusterShape shape : layouts()) {
            for (Algorithm chosen : Candidates.algorithms(shape, MemoryKind.HOST)) {
                for (IntraNode chosenIntra : List.of(IntraNode.RING, IntraNode.FANOUT)) {
                    for (boolean curves : new boolean[] {false, true}) {
                        cases.add(new TrialKindsCase(shape, chosen, chosenIntra, curves));
                    }
                }
            }
        }
        return cases;
    }

    @Test
    void theFlatTreesRunnerUpIsSoughtPastTheThresholdAcrossRealNodesOnly() {
        for (ClusterShape shape : layouts()) {
            for (TreeShape requested : SHAPES_OR_OPEN) {
                for (long size : new long[] {Candidates.SECOND_SHAPE_ABOVE, Candidates.SECOND_SHAPE_ABOVE + 1}) {
                    List<TreeShape> got = Candidates.secondFlatShapes(size, shape, requested, TreeShape.KNOMIAL);
                    boolean sought =
                            size > Candidates.SECOND_SHAPE_ABOVE && shape.crossesNetwork() && requested == null;
                    assertEquals(
                            sought ? Candidates.flat(shape, null).size() - 1 : 0,
                            got.size(),
                            shape + " " + requested + " " + size);
                    assertFalse(got.contains(TreeShape.KNOMIAL));
                }
            }
        }
    }
}
