package org.hbcast.bench.simulate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ScatterAllgatherTest {
    private static final Fabric.Link NET = new Fabric.Link(0, 1e9);
    private static final Fabric.Link SHM = new Fabric.Link(0, 4e9);
    private static final long M = 1 << 24;
    private static final double T = M / 1e9;

    @Test
    void twoRanksSendHalfThenSwapHalves() {
        assertEquals(T, ScatterAllgather.play(new Fabric(2, 1, NET, SHM), M, false), 1e-12);
    }

    @Test
    void fourRanksByRecursiveDoublingTakeOneAndAHalfMessageTimes() {
        // Scatter: m/2 to rank 2, then m/4 to ranks 1 and 3 at once (3/4); allgather: m/4 (1), then m/2 (3/2).
        assertEquals(1.5 * T, ScatterAllgather.play(new Fabric(4, 1, NET, SHM), M, false), 1e-12);
    }

    @Test
    void fourRanksAroundARingTakeOneAndAHalfMessageTimes() {
        // The same scatter, then three ring steps of m/4 from 3/4 on.
        assertEquals(1.5 * T, ScatterAllgather.play(new Fabric(4, 1, NET, SHM), M, true), 1e-12);
    }
}
