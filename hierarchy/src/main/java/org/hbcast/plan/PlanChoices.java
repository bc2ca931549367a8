package org.hbcast.plan;

/**
 * What the options fix of a call's plan, and what they leave to the selector: an algorithm other
 * than {@link Algorithm#AUTO}, a transport other than {@link IntraNode#AUTO}, a chunk size or a
 * radix other than 0 are fixed. {@code trials} allows {@code auto} to try plans in the run.
 */
public record PlanChoices(Algorithm algorithm, IntraNode intra, int chunkBytes, int radix, boolean trials) {}
