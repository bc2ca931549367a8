package org.hbcast.bench.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.hbcast.schedule.TreeShape;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PipelinedBroadcastTest {
    private static final Fabric.Link SHM = new Fabric.Link(1e-6, 4e9);

    private static int[] identity(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) {
            r[i] = i;
        }
        return r;
    }

    @ParameterizedTest
    @CsvSource({"2,1", "2,8", "5,1", "5,16", "17,64"})
    void chainOfNNodesWithCChunksTakesNMinusOnePlusCMinusOneChunkTimes(int n, int chunks) {
        Fabric f = new Fabric(n, 1, new Fabric.Link(0, 1e9), SHM);
        long c = 1 << 16;
        double step = c / 1e9;
        double t =
                PipelinedBroadcast.play(f, Tree.of(TreeShape.CHAIN, n, 2), identity(n), chunks * c, c, NodeStage.NONE);
        assertEquals((n - 1 + chunks - 1) * step, t, 1e-12);
    }

    @Test
    void chainWithLatencyPaysItOncePerHop() {
        int n = 6;
        int chunks = 10;
        long c = 1 << 16;
        double lat = 5e-6;
        double step = c / 1e9;
        Fabric f = new Fabric(n, 1, new Fabric.Link(lat, 1e9), SHM);
        double t =
                PipelinedBroadcast.play(f, Tree.of(TreeShape.CHAIN, n, 2), identity(n), chunks * c, c, NodeStage.NONE);
        assertEquals((n - 1) * (lat + step) + (chunks - 1) * step, t, 1e-12);
    }

    @ParameterizedTest
    @CsvSource({"2,1", "4,2", "16,4", "64,6"})
    void unsegmentedBinomialOverTwoToTheKHostsTakesKHops(int n, int k) {
        double lat = 3e-6;
        long m = 1 << 20;
        Fabric f = new Fabric(n, 1, new Fabric.Link(lat, 1e9), SHM);
        double t = PipelinedBroadcast.play(f, Tree.of(TreeShape.KNOMIAL, n, 2), identity(n), m, m, NodeStage.NONE);
        assertEquals(k * (lat + m / 1e9), t, 1e-12);
    }

    @Test
    void rootSendsEveryChunkToEachOfItsChildrenInASegmentedTree() {
        // A star (radix n): the root's injection carries the message n - 1 times.
        int n = 5;
        long m = 1 << 22;
        Fabric f = new Fabric(n, 1, new Fabric.Link(0, 1e9), SHM);
        double t =
                PipelinedBroadcast.play(f, Tree.of(TreeShape.KNOMIAL, n, n), identity(n), m, 1 << 16, NodeStage.NONE);
        assertEquals((n - 1) * m / 1e9, t, 1e-9);
    }

    @Test
    void twoParticipantsOfTwoTreesAreOnePipelinedHop() {
        long c = 1 << 16;
        Fabric f = new Fabric(2, 1, new Fabric.Link(2e-6, 1e9), SHM);
        double t = PipelinedBroadcast.play(f, Tree.of(TreeShape.TWO_TREE, 2, 2), identity(2), 8 * c, c, NodeStage.NONE);
        assertEquals(2e-6 + 8 * c / 1e9, t, 1e-12);
    }

    @Test
    void twoTreesApproachTheLinkBoundWhereAKnomialTreeCannot() {
        int n = 64;
        long m = 64L << 20;
        Fabric f = new Fabric(n, 1, new Fabric.Link(1e-6, 1e9), SHM);
        double bound = Simulator.lowerBound(m, n, f.network());
        double two = PipelinedBroadcast.play(
                f, Tree.of(TreeShape.TWO_TREE, n, 2), identity(n), m, 256 << 10, NodeStage.NONE);
        double knomial =
                PipelinedBroadcast.play(f, Tree.of(TreeShape.KNOMIAL, n, 2), identity(n), m, 256 << 10, NodeStage.NONE);
        assertTrue(two < 1.15 * bound, "two trees " + two + " s against the bound " + bound + " s");
        assertTrue(knomial > 5 * bound, "binomial " + knomial + " s against the bound " + bound + " s");
    }

    @Test
    void nodeStageAddsItsFillOnceAndItsStagePerChunkWhereItIsTheSlowerLevel() {
        long c = 1 << 16;
        int chunks = 8;
        double step = c / 1e9;
        NodeStage slow = new NodeStage() {
            @Override
            public double fill(int node, long bytes) {
                return 3 * step;
            }

            @Override
            public double stage(int node, long bytes) {
                return 2 * step;
            }
        };
        Fabric f = new Fabric(2, 4, new Fabric.Link(0, 1e9), SHM);
        double t = PipelinedBroadcast.play(f, Tree.of(TreeShape.CHAIN, 2, 2), new int[] {0, 4}, chunks * c, c, slow);
        // The root's node streams from time 0; the other's receives chunk s at (s + 1) step but can only
        // start one every 2 steps: its last starts at step + 7 * 2 step, done 3 steps later.
        assertEquals(step + (chunks - 1) * 2 * step + 3 * step, t, 1e-12);
    }
}
