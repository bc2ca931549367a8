package org.hbcast.plan;

import java.util.Map;
import org.hbcast.schedule.TreeShape;

/**
 * What the options fix of a call's plan, and what they leave to the selector: an algorithm other
 * than {@link Algorithm#AUTO}, a transport other than {@link IntraNode#AUTO}, a leaders' schedule
 * other than null, a chunk size or a radix other than 0 are fixed. {@code trials} allows
 * {@code auto} to try plans in the run.
 */
public record PlanChoices(
        Algorithm algorithm, IntraNode intra, TreeShape inter, int chunkBytes, int radix, boolean trials) {

    /**
     * The choices of a communicator's settings as the API writes them ({@code BcastOptions.asEnvironment()}:
     * {@code HBCAST_ALGORITHM}, {@code HBCAST_INTRA}, {@code HBCAST_INTER}, {@code HBCAST_CHUNK_BYTES},
     * {@code HBCAST_RADIX}, {@code HBCAST_TRIALS}, each present and valid).
     */
    public static PlanChoices of(Map<String, String> settings) {
        String inter = settings.get("HBCAST_INTER");
        return new PlanChoices(
                Algorithm.parse(settings.get("HBCAST_ALGORITHM")),
                IntraNode.parse("HBCAST_INTRA", settings.get("HBCAST_INTRA")),
                inter.equals("auto") ? null : TreeShape.parse("HBCAST_INTER", inter),
                Integer.parseInt(settings.get("HBCAST_CHUNK_BYTES")),
                Integer.parseInt(settings.get("HBCAST_RADIX")),
                settings.get("HBCAST_TRIALS").equals("1"));
    }
}
