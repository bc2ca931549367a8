package org.hbcast.tuning;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.PlanChoices;
import org.hbcast.schedule.TreeShape;
import org.junit.jupiter.api.Test;

/** Which device plans the trials time, over every layout of 1 to 4 nodes of 1 to 4 ranks, real and virtual. */
class DeviceCandidatesTest {
    private static List<ClusterShape> layouts() {
        List<ClusterShape> out = new ArrayList<>();
        for (int nodes = 1; nodes <= 4; nodes++) {
            int[] sizes = new int[nodes];
            Arrays.fill(sizes, 1);
            while (true) {
                List<Integer> list = Arrays.stream(sizes).boxed().toList();
                out.add(new ClusterShape(list, false));
                out.add(new ClusterShape(list, true));
                int i = nodes - 1;
                while (i >= 0 && sizes[i] == 4) {
                    sizes[i--] = 1;
                }
                if (i < 0) {
                    break;
                }
                sizes[i]++;
            }
        }
        return out;
    }

    /**
     * Staging (Open MPI's {@code bcast} through the host) always; the hierarchy where a node has a
     * ring; the flat tree across nodes, and on one node only where the model chose it; the model's
     * choice always; in the order of {@link Candidates#algorithms}.
     */
    @Test
    void stagingAlwaysTheModelsChoiceAlwaysTheFlatTreeOnOneNodeOnlyWhereChosen() {
        for (ClusterShape shape : layouts()) {
            for (Algorithm chosen : List.of(Algorithm.NATIVE, Algorithm.KNOMIAL, Algorithm.HIERARCHICAL)) {
                if (chosen == Algorithm.HIERARCHICAL && shape.maxNodeSize() < 2) {
                    continue;
                }
                List<Algorithm> want = new ArrayList<>();
                want.add(Algorithm.NATIVE);
                if (shape.nodes() > 1 || chosen == Algorithm.KNOMIAL) {
                    want.add(Algorithm.KNOMIAL);
                }
                if (shape.maxNodeSize() > 1) {
                    want.add(Algorithm.HIERARCHICAL);
                }
                assertEquals(want, Candidates.deviceTrialAlgorithms(shape, chosen), shape + ", chosen " + chosen);
            }
        }
    }

    /** Device classes try wherever the options leave the algorithm open with trials on and there are two ranks, tables or not. */
    @Test
    void deviceClassesTryUpToTheLargestTriedClassWhereTheOptionsAllow() {
        for (ClusterShape shape : layouts()) {
            for (Algorithm a : Algorithm.values()) {
                for (boolean trials : new boolean[] {true, false}) {
                    PlanChoices options = new PlanChoices(a, IntraNode.AUTO, (TreeShape) null, 0, 0, trials);
                    for (int c = 0; c < 64; c++) {
                        assertEquals(
                                trials
                                        && a == Algorithm.AUTO
                                        && shape.ranks() > 1
                                        && c <= Candidates.LARGEST_TRIED_CLASS,
                                Candidates.triedOnDevice(options, shape, c),
                                shape + " " + a + " trials=" + trials + " class " + c);
                    }
                }
            }
        }
    }
}
