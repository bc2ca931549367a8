package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.Map;
import org.hbcast.mpi.NodeLayout;
import org.junit.jupiter.api.Test;

class SelectorTest {
    private static final BcastOptions AUTO = BcastOptions.fromEnvironment(Map.of());

    @Test
    void autoSendsSmallMessagesToNativeAndLargeOnesToTheHierarchy() {
        Selector s = new Selector(AUTO, NodeLayout.parse("2,2", 4), 1 << 20);
        assertEquals(Algorithm.NATIVE, s.plan(1).algorithm());
        assertEquals(Algorithm.NATIVE, s.plan(Selector.SMALL_MESSAGE_BYTES - 1).algorithm());
        assertEquals(Algorithm.HIERARCHICAL, s.plan(Selector.SMALL_MESSAGE_BYTES).algorithm());
        assertEquals(Selector.DEFAULT_CHUNK_BYTES, s.plan(1 << 30).chunkBytes());
    }

    @Test
    void nodesOfOneRankUseTheFlatTree() {
        Selector s = new Selector(AUTO, NodeLayout.parse("1,1,1", 3), 1 << 20);
        assertEquals(Algorithm.KNOMIAL, s.plan(1 << 20).algorithm());
    }

    @Test
    void optionsWinAndChunksNeverExceedTheSlots() {
        BcastOptions o = AUTO.withAlgorithm(Algorithm.KNOMIAL).withChunkBytes(1 << 22).withRadix(4);
        Selector s = new Selector(o, NodeLayout.singleNode(4), 1 << 20);
        Plan p = s.plan(10);
        assertEquals(Algorithm.KNOMIAL, p.algorithm());
        assertEquals(1 << 20, p.chunkBytes());
        assertEquals(4, p.radix());
    }

    @Test
    void choosingAllocatesNoNewPlans() {
        Selector s = new Selector(AUTO, NodeLayout.singleNode(4), 1 << 20);
        assertSame(s.plan(1 << 20), s.plan(1 << 24));
        assertSame(s.plan(1), s.plan(100));
    }
}
