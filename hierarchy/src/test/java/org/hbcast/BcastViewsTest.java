package org.hbcast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.schedule.TreeShape;
import org.hbcast.select.Explanation;
import org.junit.jupiter.api.Test;

/** The API's read-only views: what they compute from what they copied. */
class BcastViewsTest {
    @Test
    void aPlansNameIsTheExplanationsForEveryAlgorithmTransportAndSchedule() {
        for (Algorithm a : Algorithm.values()) {
            for (IntraNode i : IntraNode.values()) {
                for (TreeShape s : TreeShape.values()) {
                    BcastPlan p = new BcastPlan(a.toString(), i.toString(), s.toString(), 64, 2, "", 0, 0);
                    assertEquals(Explanation.name(a, i, s), p.name(), a + "/" + i + "/" + s);
                    assertEquals(a == Algorithm.HIERARCHICAL, p.hierarchical());
                }
            }
        }
    }

    @Test
    void aTopologyFindsEachRanksNodeAndPosition() {
        // Nodes of 3, 1 and 2 ranks, not in rank order (real nodes need not be).
        List<List<Integer>> nodes = List.of(List.of(0, 2, 5), List.of(1), List.of(3, 4));
        for (int r = 0; r < 6; r++) {
            BcastTopology t = new BcastTopology(r, nodes, nodes, false);
            assertEquals(6, t.size());
            assertEquals(3, t.nodeCount());
            assertEquals(List.of(3, 1, 2), t.nodeSizes());
            assertEquals(r, t.rankAt(t.node(), t.position()));
        }
        assertEquals("[0, 2, 5] + [1] + [3, 4]", new BcastTopology(0, nodes, nodes, false).toString());
        assertThrows(IllegalStateException.class, () -> new BcastTopology(9, nodes, nodes, false).node());
    }

    @Test
    void theViewsAreCopies() {
        List<List<Integer>> nodes = new ArrayList<>(List.of(new ArrayList<>(List.of(0, 1))));
        BcastTopology t = new BcastTopology(0, nodes, nodes, true);
        nodes.get(0).add(2);
        nodes.add(List.of(3));
        assertEquals(List.of(List.of(0, 1)), t.nodes());
        assertThrows(UnsupportedOperationException.class, () -> t.nodes().get(0).add(7));
        List<String> links = new ArrayList<>(List.of("shm"));
        BcastFingerprint f = new BcastFingerprint("c", "id", "h", "hid", links, "1x2");
        links.add("net");
        assertEquals(List.of("shm"), f.links());
    }
}
