package org.hbcast.bench.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The main job ({@code compare} with no {@code --layout}): one node of 4 ranks, measured against the
 * copy bound, then, where a test bed can be made, 3 hosts of 4+2+2 ranks with every link shaped
 * (1 Gbit/s unless {@code --rate}), measured against the link bound; one report of both.
 *
 * <p>A 16 MiB call at 1 Gbit/s takes 0.14 s at best and 0.57 s with Open MPI's default, so the
 * bed's sizes are cut to keep the whole job near a quarter of an hour: one round, OSU-style 64 KiB
 * to 16 MiB in 10 iterations, and the probe 64 KiB to 8 MiB beside Open MPI's default and its
 * k-nomial tree (the fastest Open MPI there, as the OSU-style table of the same run shows), in the
 * never-slower issue's blocks (7 of 20 calls).
 */
public final class MainJob {
    /** The one-node part. */
    public static final String NODE_PART = "node4";
    /** The shaped test-bed part. */
    public static final String BED_PART = "testbed3x4,2,2";
    /** The rate of the bed's links unless {@code --rate} says otherwise. */
    public static final String BED_RATE = "1gbit";

    private MainJob() {}

    /** Where the main job's parts and its report go: {@code --out}, else {@code ROOT/results/compare-main}. */
    public static Path out(CompareSettings main, Path root) {
        return main.outIn(root);
    }

    /** The parts of the main job, in the order they run; the bed's only where {@code bedAvailable}. */
    public static List<CompareSettings> parts(CompareSettings main, Path root, boolean bedAvailable) {
        if (!main.isMain()) {
            throw new IllegalArgumentException(main.layout() + " is not the main job");
        }
        Path out = out(main, root);
        List<CompareSettings> parts = new ArrayList<>();
        parts.add(new CompareSettings(
                NODE_PART,
                null,
                main.rounds(),
                main.configs(),
                main.impls(),
                out.resolve(NODE_PART),
                null,
                main.timeoutSeconds(),
                main.probeSizes(),
                main.probeCalls(),
                main.probeBlocks(),
                main.probeConfigs(),
                main.osu()));
        if (bedAvailable) {
            parts.add(new CompareSettings(
                    BED_PART,
                    main.rate() != null ? main.rate() : BED_RATE,
                    1,
                    main.configs(),
                    main.impls(),
                    out.resolve(BED_PART),
                    null,
                    main.timeoutSeconds(),
                    "65536:8388608",
                    20,
                    7,
                    List.of(Configuration.TUNED, Configuration.TUNED_KNOMIAL, Configuration.HBCAST),
                    List.of("-m", "65536:16777216", "-i", "10", "-x", "2")));
        }
        return parts;
    }
}
