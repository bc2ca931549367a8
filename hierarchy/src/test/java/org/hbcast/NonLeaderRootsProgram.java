package org.hbcast;

import java.util.Map;
import org.hbcast.call.ElementType;
import org.hbcast.testing.MpiTestProgram;

/**
 * Broadcasts of 121 KiB arrays whose roots alternate between ranks 1 and 3, the non-leaders of two
 * hosts (issue 52, the soak's time-out): past Open MPI's TCP eager limit, so each goes in fragments
 * after the receiver agrees, and a root whose send has returned then waits for the next header on
 * its node's board. Every byte of {@code calls=} calls is checked on every rank.
 */
public final class NonLeaderRootsProgram {
    private static final int CHARS = 61_950;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            Map<String, String> opt = BcastMatrixProgram.parse(rest);
            int calls = Integer.parseInt(opt.getOrDefault("calls", "40"));
            try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                for (int i = 0; i < calls; i++) {
                    BcastMatrixProgram.check(
                            report, hb, world, Payload.Kind.ARRAY, ElementType.CHAR, CHARS, i % 2 == 0 ? 1 : 3, i);
                }
            }
            return "calls=" + calls;
        });
    }
}
