package org.hbcast.plan;

import org.hbcast.schedule.TreeShape;

/**
 * What the options fix of a call's plan, and what they leave to the selector: an algorithm other
 * than {@link Algorithm#AUTO}, a transport other than {@link IntraNode#AUTO}, a leaders' schedule
 * other than null, a chunk size or a radix other than 0 are fixed. {@code trials} allows
 * {@code auto} to try plans in the run.
 */
public record PlanChoices(
        Algorithm algorithm, IntraNode intra, TreeShape inter, int chunkBytes, int radix, boolean trials) {}
