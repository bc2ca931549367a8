package org.hbcast;

import java.util.Map;
import mpi.MPI;
import org.hbcast.call.ElementType;
import org.hbcast.testing.MpiTestProgram;

/**
 * Settings that differ across ranks (issue 52): each rank notes the settings in force after
 * {@code create} and checks every byte of ten broadcasts of 4 MiB, or notes the error {@code create}
 * gave it. Suites ({@code suite=}):
 *
 * <ul>
 *   <li>{@code follow}: {@code create} from each rank's environment; notes {@code algorithm},
 *       {@code chunk}, {@code nodes} (the layout's node sizes), then the ten calls.
 *   <li>{@code code}: options passed in code that differ (the chunk, by node) must fail {@code create}
 *       on every rank (note {@code code error}); {@code create} from the environment then works.
 *   <li>{@code fails}: {@code create} from the environment must fail on every rank with an error
 *       containing {@code expect=}; Open MPI's own broadcast then still works (nobody is left
 *       waiting inside {@code create}), and options passed in code that every rank shares work.
 * </ul>
 */
public final class SettingsProgram {
    private static final int CALLS = 10;
    private static final int INTS = 1 << 20;

    public static void main(String[] args) throws Exception {
        MpiTestProgram.run(args, (world, rest, report) -> {
            Map<String, String> opt = BcastMatrixProgram.parse(rest);
            String suite = opt.getOrDefault("suite", "follow");
            switch (suite) {
                case "follow" -> {
                    try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                        noteAndCheck(hb, world, report);
                    }
                }
                case "code" -> {
                    int chunk = world.getRank() < world.getSize() / 2 ? 1 << 20 : 64 << 10;
                    ExpectError.into(
                            report,
                            "code error",
                            "HBCAST_CHUNK_BYTES",
                            () -> HierarchicalBcast.create(
                                    world, BcastOptions.defaults().withChunkBytes(chunk)));
                    try (HierarchicalBcast hb = HierarchicalBcast.create(world)) {
                        noteAndCheck(hb, world, report);
                    }
                }
                case "fails" -> {
                    ExpectError.into(report, "create error", opt.get("expect"), () -> HierarchicalBcast.create(world));
                    report.check("Open MPI's bcast after", () -> {
                        int[] x = {world.getRank() == 0 ? 4242 : 0};
                        world.bcast(x, 1, MPI.INT, 0);
                        if (x[0] != 4242) {
                            throw new AssertionError("Open MPI's bcast gave " + x[0]);
                        }
                    });
                }
                default -> throw new IllegalArgumentException("no suite " + suite);
            }
            return "suite=" + suite;
        });
    }

    private static void noteAndCheck(HierarchicalBcast hb, mpi.Intracomm world, org.hbcast.testing.RankReport report)
            throws Exception {
        report.note("algorithm", hb.options().algorithm().toString())
                .note("chunk", Integer.toString(hb.options().chunkBytes()))
                .note("nodes", hb.topology().toString());
        for (int i = 0; i < CALLS; i++) {
            BcastMatrixProgram.check(
                    report, hb, world, Payload.Kind.ARRAY, ElementType.INT, INTS, i % world.getSize(), 52_000 + i);
        }
    }
}
