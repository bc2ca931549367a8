package org.hbcast.select;

import org.hbcast.plan.Algorithm;
import org.hbcast.plan.IntraNode;
import org.hbcast.plan.PlanChoices;
import org.hbcast.schedule.TreeShape;

/** What options fix of a plan, built as {@code BcastOptions} builds it: for the selector's tests. */
record Choices(PlanChoices planChoices) {
    /** The default options': everything open, trials on. */
    static final Choices AUTO = new Choices(new PlanChoices(Algorithm.AUTO, IntraNode.AUTO, null, 0, 0, true));

    Choices withAlgorithm(Algorithm a) {
        PlanChoices c = planChoices;
        return new Choices(new PlanChoices(a, c.intra(), c.inter(), c.chunkBytes(), c.radix(), c.trials()));
    }

    Choices withIntra(IntraNode i) {
        PlanChoices c = planChoices;
        return new Choices(new PlanChoices(c.algorithm(), i, c.inter(), c.chunkBytes(), c.radix(), c.trials()));
    }

    Choices withInter(TreeShape s) {
        PlanChoices c = planChoices;
        return new Choices(new PlanChoices(c.algorithm(), c.intra(), s, c.chunkBytes(), c.radix(), c.trials()));
    }

    Choices withChunkBytes(int bytes) {
        PlanChoices c = planChoices;
        return new Choices(new PlanChoices(c.algorithm(), c.intra(), c.inter(), bytes, c.radix(), c.trials()));
    }

    Choices withRadix(int k) {
        PlanChoices c = planChoices;
        return new Choices(new PlanChoices(c.algorithm(), c.intra(), c.inter(), c.chunkBytes(), k, c.trials()));
    }

    Choices withTrials(boolean on) {
        PlanChoices c = planChoices;
        return new Choices(new PlanChoices(c.algorithm(), c.intra(), c.inter(), c.chunkBytes(), c.radix(), on));
    }
}
