package org.hbcast.tuning;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.LongToDoubleFunction;
import org.hbcast.plan.IntraNode;

/**
 * The streaming cost of one intra-node transport on a node of {@code nodeSize} ranks, measured by the
 * calibration with every rank of the node taking part: per chunk size, {@code fill} is the time of a
 * one-chunk broadcast (the pipeline filling) and {@code stages} what each further chunk adds once the
 * pipeline runs, measured at several message sizes. Measured this way the curve carries what a
 * two-rank ping-pong cannot: the ranks sharing cores, the copies each transport makes per chunk, and
 * the caches: a chunk costs far less while the node's buffers (ranks x message) fit in the last-level
 * cache than once they stream from memory. The same record holds a two-level curve
 * ({@link Calibration#twoLevelCurves()}): the whole two-level broadcast on a layout of several nodes,
 * timed the same way with {@code transport} inside its nodes.
 *
 * @param transport {@link IntraNode#RING} or {@link IntraNode#FANOUT}
 * @param nodeSize ranks of the node it was measured on (of the largest node, for a two-level curve), at least 2
 * @param chunks measured chunk sizes, strictly ascending
 */
public record NodeCurve(IntraNode transport, int nodeSize, List<ChunkCost> chunks) {
    /**
     * Costs at one chunk size.
     *
     * @param stages seconds per further chunk by message size (ascending sizes, at least one)
     */
    public record ChunkCost(int chunkBytes, double fillSeconds, List<TimedSize> stages) {
        public ChunkCost {
            stages = List.copyOf(Objects.requireNonNull(stages, "stages"));
        }

        /** Seconds per chunk in a message of {@code messageBytes}: log-log between measured sizes, flat outside. */
        double stage(long messageBytes) {
            if (messageBytes >= stages.get(stages.size() - 1).bytes()) {
                return stages.get(stages.size() - 1).seconds();
            }
            return Interpolation.logLog(stages, messageBytes);
        }

        /** The largest message this chunk's stage was measured in: past it {@link #stage} only repeats that figure. */
        long largestMessage() {
            return stages.get(stages.size() - 1).bytes();
        }
    }

    /** How much more per byte a chunk may cost than one half its size: copies that fall out of a cache level. */
    static final double CACHE_HEADROOM = 2;

    public NodeCurve {
        if (transport != IntraNode.RING && transport != IntraNode.FANOUT) {
            throw new IllegalArgumentException("a node curve is of the ring or the fan-out, not " + transport);
        }
        if (nodeSize < 2) {
            throw new IllegalArgumentException("a node curve needs a node of at least 2 ranks, got " + nodeSize);
        }
        chunks = List.copyOf(Objects.requireNonNull(chunks, "chunks"));
        if (chunks.isEmpty()) {
            throw new IllegalArgumentException("a node curve needs at least one chunk size");
        }
        long previous = 0;
        for (ChunkCost c : chunks) {
            if (c.chunkBytes() <= previous
                    || !positive(c.fillSeconds())
                    || c.stages().isEmpty()) {
                throw new IllegalArgumentException("node curve of the " + transport + ": chunk sizes must ascend, fill"
                        + " times be positive and every chunk have stage times; got " + c.chunkBytes() + " B, fill "
                        + c.fillSeconds() + " s, " + c.stages().size() + " stage times");
            }
            long previousMessage = 0;
            for (TimedSize t : c.stages()) {
                if (t.bytes() <= previousMessage || !positive(t.seconds())) {
                    throw new IllegalArgumentException("node curve of the " + transport + ", chunk " + c.chunkBytes()
                            + " B: stage times need ascending message sizes and positive times, got " + t.bytes()
                            + " B in " + t.seconds() + " s");
                }
                previousMessage = t.bytes();
            }
            previous = c.chunkBytes();
        }
    }

    /**
     * This curve with measurement noise taken out where physics bounds it. Noise on a shared machine
     * only ever adds time, so where two neighbouring chunk sizes disagree with what must hold between
     * them the lower figure is the truer one: a chunk costs no more than a larger one
     * ({@code t(c) <= t(2c)}), and a larger chunk no more per byte than a smaller one, but for a
     * cache level it may outgrow ({@code t(2c) <= 2 * }{@value #CACHE_HEADROOM}{@code * t(c)}, at
     * message sizes up to the largest {@code c} was measured in). Applied to the fill and to the stage
     * at each measured message size.
     */
    public NodeCurve smoothed() {
        List<ChunkCost> work = new ArrayList<>(chunks);
        // Lowering one figure can tighten a bound on another: a round per chunk size settles every chain.
        for (int round = 0; round < work.size(); round++) {
            for (int i = 1; i < work.size(); i++) {
                ChunkCost smaller = work.get(i - 1);
                double ratio = CACHE_HEADROOM * work.get(i).chunkBytes() / smaller.chunkBytes();
                // Only where the smaller chunk was measured: a small chunk measured in cache alone says
                // nothing of what it costs once a message streams from memory.
                work.set(
                        i,
                        capped(
                                work.get(i),
                                ratio * smaller.fillSeconds(),
                                m -> m <= smaller.largestMessage()
                                        ? ratio * smaller.stage(m)
                                        : Double.POSITIVE_INFINITY));
            }
            for (int i = work.size() - 2; i >= 0; i--) {
                ChunkCost larger = work.get(i + 1);
                work.set(i, capped(work.get(i), larger.fillSeconds(), larger::stage));
            }
        }
        return new NodeCurve(transport, nodeSize, work);
    }

    /** {@code cost} with its fill at most {@code maxFill} and each stage at most {@code maxStage} of its message size. */
    private static ChunkCost capped(ChunkCost cost, double maxFill, LongToDoubleFunction maxStage) {
        List<TimedSize> stages = cost.stages().stream()
                .map(t -> new TimedSize(t.bytes(), Math.min(t.seconds(), maxStage.applyAsDouble(t.bytes()))))
                .toList();
        return new ChunkCost(cost.chunkBytes(), Math.min(cost.fillSeconds(), maxFill), stages);
    }

    private static boolean positive(double seconds) {
        return seconds > 0 && seconds < 3600;
    }

    /** Seconds of a one-chunk broadcast of {@code chunkBytes} (see {@link Interpolation#logLog}). */
    public double fill(long chunkBytes) {
        return Interpolation.logLog(
                chunks.stream()
                        .map(c -> new TimedSize(c.chunkBytes(), c.fillSeconds()))
                        .toList(),
                chunkBytes);
    }

    /**
     * Seconds each further chunk of {@code chunkBytes} adds in a message of {@code messageBytes} in
     * the steady state: interpolated on log scales between measured chunk sizes (below the smallest its
     * cost, above the largest its cost scaled by bytes) and between measured message sizes.
     */
    public double stage(long chunkBytes, long messageBytes) {
        long[] sizes = chunks.stream().mapToLong(ChunkCost::chunkBytes).toArray();
        Interpolation.Position p = Interpolation.locate(sizes, chunkBytes);
        ChunkCost lo = chunks.get(p.lower());
        if (p.exact()) {
            double t = lo.stage(messageBytes);
            return chunkBytes > lo.chunkBytes() ? t * chunkBytes / lo.chunkBytes() : t;
        }
        return Interpolation.geometric(
                lo.stage(messageBytes), chunks.get(p.upper()).stage(messageBytes), p.fraction());
    }
}
