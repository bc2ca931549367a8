package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.MemoryKind;
import org.hbcast.schedule.TreeShape;
import org.junit.jupiter.api.Test;

class CostModelTest {
    private final Calibration cal = TuningFixtures.calibration();
    private final CostModel model = new CostModel(cal);
    private final LinkCalibration shm = cal.link(LinkKind.SHARED_MEMORY);
    private final LinkCalibration net = cal.link(LinkKind.NETWORK);

    @Test
    void ringMatchesTheFormula() {
        long m = 8 << 20;
        int c = 1 << 20;
        double expected = (8 + 4 - 2) * (10e-6 + c / 1e9);
        assertEquals(
                expected,
                model.predict(
                        Algorithm.HIERARCHICAL, IntraNode.RING, m, c, 2, ClusterShape.parse("1x4"), MemoryKind.HOST),
                1e-12);
        assertEquals(0, CostModel.ring(8, c, 1, shm));
    }

    @Test
    void theRingsBestGridChunkBracketsTheContinuousOptimum() {
        for (int n : new int[] {3, 4, 6, 8, 16}) {
            for (long m : new long[] {1 << 20, 16 << 20, 64 << 20, 256L << 20}) {
                double opt = ringOptimalChunk(m, n, shm);
                ClusterShape shape = ClusterShape.parse("1x" + n);
                CostModel.Choice c =
                        model.best(m, shape, MemoryKind.HOST, 16 << 20, Algorithm.HIERARCHICAL, IntraNode.RING, 0, 0);
                assertTrue(
                        c.chunkBytes() >= opt / 2 && c.chunkBytes() <= opt * 2,
                        "n=" + n + " m=" + m + ": chunk " + c.chunkBytes() + " vs c*=" + opt);
                // c* is a minimum of the continuous formula: both neighbours are worse.
                double at = (m / opt + n - 2) * shm.seconds(opt);
                assertTrue(at <= (m / (opt * 1.1) + n - 2) * shm.seconds(opt * 1.1));
                assertTrue(at <= (m / (opt / 1.1) + n - 2) * shm.seconds(opt / 1.1));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> ringOptimalChunk(1 << 20, 2, shm));
    }

    /** The continuous optimum {@code c* = sqrt(m * ts * b / (n - 2))} of the ring, for {@code n > 2}: DESIGN.md's formula. */
    private static double ringOptimalChunk(long bytes, int n, LinkCalibration link) {
        if (n <= 2) {
            throw new IllegalArgumentException("a ring of " + n + " has no interior optimum: one chunk is best");
        }
        return Math.sqrt(bytes * link.startupSeconds() * link.bytesPerSecond() / (n - 2));
    }

    @Test
    void anUnsegmentedTreeOfFullLevelsIsLevelsTimesRadixMinusOneSends() {
        long m = 1 << 20;
        int[][] cases = {{8, 2}, {9, 3}, {16, 4}, {27, 3}, {2, 2}};
        for (int[] nk : cases) {
            int n = nk[0];
            int k = nk[1];
            int levels = (int) Math.round(Math.log(n) / Math.log(k));
            double expected = levels * (k - 1) * net.seconds(m);
            assertEquals(expected, CostModel.tree(m, 1, n, k, net), expected * 1e-12, "N=" + n + " k=" + k);
            assertEquals(levels * (k - 1), CostModel.rootChildren(n, k));
        }
    }

    @Test
    void fillCountsSendsAlongTheSlowestPath() {
        assertEquals(1, CostModel.fillSends(2, 2));
        assertEquals(2, CostModel.fillSends(3, 2));
        assertEquals(2, CostModel.fillSends(4, 2));
        assertEquals(3, CostModel.fillSends(8, 2));
        assertEquals(3, CostModel.fillSends(4, 4));
        assertEquals(0, CostModel.fillSends(1, 3));
    }

    @Test
    void timesGrowWithSizeRanksAndSlowerLinks() {
        ClusterShape shape = TuningFixtures.TWO_BY_TWO;
        for (Algorithm a : List.of(Algorithm.NATIVE, Algorithm.KNOMIAL, Algorithm.HIERARCHICAL)) {
            double previous = 0;
            for (long m = 1; m <= 1L << 30; m *= 2) {
                double t = model.predict(a, IntraNode.RING, m, 256 << 10, 2, shape, MemoryKind.HOST);
                assertTrue(t >= previous, a + " at " + m);
                previous = t;
            }
        }
        double four = model.predict(
                Algorithm.HIERARCHICAL,
                IntraNode.RING,
                16 << 20,
                1 << 20,
                2,
                ClusterShape.parse("1x4"),
                MemoryKind.HOST);
        double eight = model.predict(
                Algorithm.HIERARCHICAL,
                IntraNode.RING,
                16 << 20,
                1 << 20,
                2,
                ClusterShape.parse("1x8"),
                MemoryKind.HOST);
        assertTrue(eight > four);
        Calibration slow = Calibration.measured(
                cal.hardware(),
                "",
                List.of(new LinkCalibration(LinkKind.NETWORK, 50e-6, 1e8, "measured")),
                null,
                List.of());
        assertTrue(new CostModel(slow)
                        .predict(Algorithm.HIERARCHICAL, IntraNode.RING, 16 << 20, 1 << 20, 2, shape, MemoryKind.HOST)
                > model.predict(Algorithm.HIERARCHICAL, IntraNode.RING, 16 << 20, 1 << 20, 2, shape, MemoryKind.HOST));
    }

    @Test
    void theHierarchyOverlapsTreeAndRing() {
        long m = 16 << 20;
        int c = 1 << 20;
        double tree = CostModel.tree(c, 16, 2, 2, net);
        double ring = CostModel.ring(16, c, 4, shm);
        double both = model.predict(
                Algorithm.HIERARCHICAL, IntraNode.RING, m, c, 2, ClusterShape.parse("2x4"), MemoryKind.HOST);
        assertTrue(both < tree + ring, "overlapped levels beat levels one after the other");
        assertTrue(both >= Math.max(tree, ring));
        double device = model.predict(
                Algorithm.HIERARCHICAL, IntraNode.RING, m, c, 2, ClusterShape.parse("2x4"), MemoryKind.DEVICE);
        assertNotEquals(both, device);
    }

    @Test
    void ranksSharingAGpuPayTheContextSwitchAtEveryHopAndBufferToBufferCallsTheirMapping() {
        ClusterShape node = ClusterShape.parse("1x4");
        CostModel shared = new CostModel(cal, 16, 1);
        CostModel own = new CostModel(cal, 16, 4);
        assertTrue(shared.sharesGpu(node) && !own.sharesGpu(node));
        assertTrue(shared.sharesGpu(ClusterShape.parse("2x2 virtual")) && !shared.sharesGpu(ClusterShape.parse("4x1")));
        int c = 1 << 20;
        for (long m : new long[] {c, 8L << 20, CostModel.DIRECT_FROM_BYTES - c, CostModel.DIRECT_FROM_BYTES}) {
            long chunks = m / c;
            double sharedTime =
                    shared.predict(Algorithm.HIERARCHICAL, IntraNode.RING, m, c, 2, node, MemoryKind.DEVICE);
            double ownTime = own.predict(Algorithm.HIERARCHICAL, IntraNode.RING, m, c, 2, node, MemoryKind.DEVICE);
            // (n - 1) switches to fill the ring, one per further chunk.
            assertEquals((3 + chunks - 1) * CostModel.GPU_SWITCH_SECONDS, sharedTime - ownTime, 1e-12, m + " B");
        }
        double below = own.predict(
                Algorithm.HIERARCHICAL, IntraNode.RING, CostModel.DIRECT_FROM_BYTES - c, c, 2, node, MemoryKind.DEVICE);
        double at = own.predict(
                Algorithm.HIERARCHICAL, IntraNode.RING, CostModel.DIRECT_FROM_BYTES, c, 2, node, MemoryKind.DEVICE);
        double oneChunk = own.predict(Algorithm.HIERARCHICAL, IntraNode.RING, 2L * c, c, 2, node, MemoryKind.DEVICE)
                - own.predict(Algorithm.HIERARCHICAL, IntraNode.RING, c, c, 2, node, MemoryKind.DEVICE);
        assertEquals(CostModel.IPC_MAP_SECONDS, at - below - oneChunk, 1e-12, "the mapping, paid once per call");
        assertEquals(
                org.hbcast.transport.cuda.CudaRingMember.DIRECT_MIN_BYTES,
                CostModel.DIRECT_FROM_BYTES,
                "the model's direct threshold is the ring's");
    }

    @Test
    void stagingIsTwoWholeMessageCopiesAroundOpenMpisBroadcastOfHostMemory() {
        ClusterShape shape = ClusterShape.parse("2x4");
        for (long m = 1; m <= 256L << 20; m *= 7) {
            double copies = 2 * cal.link(LinkKind.PCIE).seconds(m);
            double host = model.predict(Algorithm.NATIVE, IntraNode.RING, m, 1, 2, shape, MemoryKind.HOST);
            assertEquals(copies + host, model.staging(m, shape), 1e-15, m + " B");
            assertEquals(
                    model.staging(m, shape),
                    model.predict(Algorithm.NATIVE, IntraNode.RING, m, 1, 2, shape, MemoryKind.DEVICE),
                    1e-15);
        }
        assertEquals(0, model.staging(0, shape));
    }

    @Test
    void bestStaysWithinTheMessageAndTheCapAndIsNeverSlowerThanStagingForDevices() {
        for (String layout : List.of("1x4", "2x2", "4x1", "8+3+3", "2x2 virtual")) {
            ClusterShape shape = ClusterShape.parse(layout);
            for (long m = 1; m <= 1L << 32; m *= 3) {
                for (MemoryKind mem : MemoryKind.values()) {
                    CostModel.Choice c = model.best(m, shape, mem, 1 << 20, Algorithm.AUTO, IntraNode.AUTO, 0, 0);
                    assertTrue(
                            c.chunkBytes() >= 1 && c.chunkBytes() <= Math.min(m, 1 << 20), layout + " " + m + " " + c);
                    // Native on device memory is staging through the host: the best is never slower.
                    assertTrue(mem == MemoryKind.HOST || c.seconds() <= model.staging(m, shape), layout + " " + m);
                    assertTrue(c.seconds() > 0 && Double.isFinite(c.seconds()));
                }
            }
        }
    }

    @Test
    void aMeasuredNativeCurveIsUsedOnItsLayoutOnly() {
        Calibration withNative = Calibration.measured(
                cal.hardware(),
                "",
                cal.links(),
                "2x2",
                List.of(new TimedSize(1 << 16, 1e-4), new TimedSize(1 << 20, 1e-3)));
        CostModel m = new CostModel(withNative);
        assertEquals(
                1e-3,
                m.predict(
                        Algorithm.NATIVE,
                        IntraNode.RING,
                        1 << 20,
                        1 << 20,
                        2,
                        TuningFixtures.TWO_BY_TWO,
                        MemoryKind.HOST),
                1e-15);
        assertEquals(
                2e-3,
                m.predict(
                        Algorithm.NATIVE,
                        IntraNode.RING,
                        2 << 20,
                        1 << 20,
                        2,
                        TuningFixtures.TWO_BY_TWO,
                        MemoryKind.HOST),
                1e-15);
        assertNotEquals(
                1e-3,
                m.predict(
                        Algorithm.NATIVE,
                        IntraNode.RING,
                        1 << 20,
                        1 << 20,
                        2,
                        ClusterShape.parse("1x4"),
                        MemoryKind.HOST));
    }

    @Test
    void theLeadersChainAndTwoTreesSendEachChunkOnceFromEveryLeader() {
        long m = 64 << 20;
        int c = 256 << 10;
        long chunks = m / c;
        for (int nodes : new int[] {3, 5, 16, 256}) {
            ClusterShape shape = ClusterShape.parse(nodes + "x1");
            double knomial = model.predict(
                    Algorithm.HIERARCHICAL, IntraNode.RING, TreeShape.KNOMIAL, m, c, 2, shape, MemoryKind.HOST);
            double twoTrees = model.predict(
                    Algorithm.HIERARCHICAL, IntraNode.RING, TreeShape.TWO_TREE, m, c, 2, shape, MemoryKind.HOST);
            double chain = model.predict(
                    Algorithm.HIERARCHICAL, IntraNode.RING, TreeShape.CHAIN, m, c, 2, shape, MemoryKind.HOST);
            // F * step + (S - 1) * R * gap, with R = 1 for both and F = N - 1 for the chain.
            assertEquals(
                    TreeShape.TWO_TREE.fillSends(nodes, 2) * net.seconds(c) + (chunks - 1) * net.gapSeconds(c),
                    twoTrees,
                    twoTrees * 1e-12);
            assertEquals((nodes - 1) * net.seconds(c) + (chunks - 1) * net.gapSeconds(c), chain, chain * 1e-12);
            assertTrue(twoTrees < knomial / 1.5, nodes + " nodes: " + twoTrees + " vs " + knomial);
        }
        // Within 1.15x of the bound m / B + ceil(log2 N) * ts at 256 nodes, with the model's own chunk: 64 MiB
        // over 1 Gbit/s links is 512 MiB over the fixture's 1 GB/s.
        ClusterShape wide = ClusterShape.parse("256x1");
        long big = 512L << 20;
        CostModel.Choice best =
                model.best(big, wide, MemoryKind.HOST, 1 << 20, Algorithm.HIERARCHICAL, IntraNode.RING, null, 0, 0);
        double bound = big / net.bytesPerSecond() + 8 * net.startupSeconds();
        assertEquals(TreeShape.TWO_TREE, best.inter(), best.toString());
        assertTrue(best.seconds() < 1.15 * bound, best + " vs bound " + bound);
    }

    @Test
    void twoTreesAreChosenOnlyWherePredictedTheHandicapFasterThanEveryOtherSchedule() {
        boolean chose = false;
        boolean passedOver = false;
        for (int nodes : new int[] {3, 4, 5, 8, 16, 33, 64, 256}) {
            ClusterShape shape = ClusterShape.parse(nodes + "x1");
            for (long m = 64 << 10; m <= 256L << 20; m *= 4) {
                CostModel.Choice best = model.best(
                        m, shape, MemoryKind.HOST, 1 << 20, Algorithm.HIERARCHICAL, IntraNode.RING, null, 0, 0);
                CostModel.Choice twoTrees = model.best(
                        m,
                        shape,
                        MemoryKind.HOST,
                        1 << 20,
                        Algorithm.HIERARCHICAL,
                        IntraNode.RING,
                        TreeShape.TWO_TREE,
                        0,
                        0);
                double others = Double.POSITIVE_INFINITY;
                for (TreeShape s : new TreeShape[] {TreeShape.KNOMIAL, TreeShape.CHAIN}) {
                    others = Math.min(
                            others,
                            model.best(
                                            m,
                                            shape,
                                            MemoryKind.HOST,
                                            1 << 20,
                                            Algorithm.HIERARCHICAL,
                                            IntraNode.RING,
                                            s,
                                            0,
                                            0)
                                    .seconds());
                }
                String where = nodes + " nodes, " + m + " B: " + best;
                double handicapped = twoTrees.seconds() * (1 + CostModel.TWO_TREE_HANDICAP);
                if (best.inter() == TreeShape.TWO_TREE) {
                    assertTrue(handicapped < others, where);
                    chose = true;
                } else {
                    assertTrue(handicapped >= others, where);
                    assertEquals(others, best.seconds(), 0, where);
                    passedOver |= twoTrees.seconds() < others;
                }
            }
        }
        // Both sides of the rule occur: two trees chosen, and passed over though predicted faster.
        assertTrue(chose);
        assertTrue(passedOver);
    }
}
