package org.hbcast.bench.tune;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import org.hbcast.tuning.Calibration;
import org.hbcast.tuning.LinkCalibration;
import org.hbcast.tuning.LinkKind;
import org.hbcast.tuning.NodeCurve;
import org.hbcast.tuning.TimedSize;

/**
 * One calibration from several launches of the calibration program on the same hardware with the
 * same options, point by point. A launch of MPI ranks on an oversubscribed node has conditions of
 * its own that last as long as it does (where the scheduler puts the ranks, how their memory is laid
 * out): on a 2-core node of 4 ranks one launch streamed the ring at 8 MiB four times faster than the
 * next. Passes inside one launch cannot see that; separate launches can, and the {@link Statistic}
 * says which of them a figure follows. Node and two-level curves are
 * {@link NodeCurve#smoothed() smoothed} again after the merge. Pure. Only the calibration program
 * ({@link Calibrate}{@code --merge}) merges launches; the library reads the merged file like any other.
 */
public final class CalibrationMerge {
    /** Which launch a merged figure follows. */
    public enum Statistic {
        /** The median launch: what a launch meets most often. */
        MEDIAN,
        /**
         * The slowest launch (longest times, lowest bandwidth): what a launch may meet. A choice
         * priced so cannot turn out several times slower in the launch that runs it, which a choice
         * priced by a lucky launch can.
         */
        SLOWEST;

        /** The merged value of {@code times} (seconds: larger is slower). */
        double time(double[] times) {
            return this == SLOWEST ? Arrays.stream(times).max().orElseThrow() : median(times);
        }

        /** The merged value of {@code rates} (bytes per second: smaller is slower). */
        double rate(double[] rates) {
            return this == SLOWEST ? Arrays.stream(rates).min().orElseThrow() : median(rates);
        }
    }

    private CalibrationMerge() {}

    /**
     * {@code launches} (at least one) merged by {@code statistic}. They must be of one hardware and
     * have the same points: the same link kinds and curve sizes, native sizes and layout, node and
     * two-level curves (and the latter's layout), chunk sizes and message sizes.
     *
     * @throws IllegalArgumentException naming the first launch and point that differ from launch 1
     */
    public static Calibration of(List<Calibration> launches, Statistic statistic) {
        Objects.requireNonNull(statistic, "statistic");
        Objects.requireNonNull(launches, "launches");
        if (launches.isEmpty()) {
            throw new IllegalArgumentException("no calibration to merge");
        }
        Calibration first = launches.get(0);
        for (int i = 1; i < launches.size(); i++) {
            Calibration c = launches.get(i);
            require(
                    c.hardware().equals(first.hardware()),
                    i,
                    "is of hardware '" + c.hardware() + "', launch 1 of '" + first.hardware() + "'");
            require(
                    Objects.equals(c.nativeLayout(), first.nativeLayout()),
                    i,
                    "timed Open MPI's bcast on layout " + c.nativeLayout() + ", launch 1 on " + first.nativeLayout());
            require(
                    Objects.equals(c.twoLevelLayout(), first.twoLevelLayout()),
                    i,
                    "timed the two-level broadcast on" + " layout " + c.twoLevelLayout() + ", launch 1 on "
                            + first.twoLevelLayout());
        }
        // Each of launch 1's links and curves is looked up in every launch below; equal counts then
        // mean no launch has one that launch 1 lacks.
        List<LinkCalibration> links = new ArrayList<>();
        for (LinkCalibration link : first.links()) {
            links.add(link(link.kind(), launches, statistic));
        }
        List<NodeCurve> curves = new ArrayList<>();
        for (NodeCurve curve : first.nodeCurves()) {
            curves.add(curve(
                    curve,
                    "node curve of the " + curve.transport() + " on " + curve.nodeSize() + " ranks",
                    launches,
                    c -> c.nodeCurve(curve.transport(), curve.nodeSize()),
                    statistic));
        }
        List<NodeCurve> twoLevel = new ArrayList<>();
        for (NodeCurve curve : first.twoLevelCurves()) {
            twoLevel.add(curve(
                    curve,
                    "two-level curve with the " + curve.transport(),
                    launches,
                    c -> c.twoLevelCurve(curve.transport()),
                    statistic));
        }
        for (int i = 1; i < launches.size(); i++) {
            Calibration c = launches.get(i);
            require(
                    c.links().size() == first.links().size(),
                    i,
                    "measured " + c.links().size() + " link kinds, launch 1 "
                            + first.links().size());
            require(
                    c.nodeCurves().size() == first.nodeCurves().size(),
                    i,
                    "measured " + c.nodeCurves().size() + " node curves, launch 1 "
                            + first.nodeCurves().size());
            require(
                    c.twoLevelCurves().size() == first.twoLevelCurves().size(),
                    i,
                    "measured " + c.twoLevelCurves().size() + " two-level curves, launch 1 "
                            + first.twoLevelCurves().size());
        }
        List<TimedSize> nativeTimes = pointwise(
                "Open MPI's bcast times",
                launches.stream().map(Calibration::nativeTimes).toList(),
                statistic);
        return Calibration.measured(
                        first.hardware(),
                        launches.get(launches.size() - 1).created(),
                        links,
                        first.nativeLayout(),
                        nativeTimes,
                        curves)
                .withTwoLevel(first.twoLevelLayout(), twoLevel);
    }

    private static LinkCalibration link(LinkKind kind, List<Calibration> launches, Statistic statistic) {
        List<LinkCalibration> all = new ArrayList<>();
        for (int i = 0; i < launches.size(); i++) {
            LinkCalibration l = launches.get(i).links().stream()
                    .filter(x -> x.kind() == kind)
                    .findFirst()
                    .orElse(null);
            require(l != null, i, "has no " + kind.id() + " link");
            all.add(l);
        }
        return new LinkCalibration(
                kind,
                statistic.time(values(all, LinkCalibration::startupSeconds)),
                statistic.rate(values(all, LinkCalibration::bytesPerSecond)),
                all.get(0).source(),
                pointwise(
                        kind.id() + " transfer times",
                        all.stream().map(LinkCalibration::transfers).toList(),
                        statistic),
                pointwise(
                        kind.id() + " gaps",
                        all.stream().map(LinkCalibration::gaps).toList(),
                        statistic));
    }

    /** {@code curve} of launch 1 merged with its counterpart ({@code lookup}) in every launch. */
    private static NodeCurve curve(
            NodeCurve curve,
            String name,
            List<Calibration> launches,
            Function<Calibration, NodeCurve> lookup,
            Statistic statistic) {
        List<NodeCurve> all = new ArrayList<>();
        for (int i = 0; i < launches.size(); i++) {
            NodeCurve c = lookup.apply(launches.get(i));
            require(c != null, i, "has no " + name);
            require(
                    c.chunks().size() == curve.chunks().size(),
                    i,
                    "has " + c.chunks().size() + " chunk sizes in its " + name + ", launch 1 "
                            + curve.chunks().size());
            all.add(c);
        }
        List<NodeCurve.ChunkCost> chunks = new ArrayList<>();
        for (int k = 0; k < curve.chunks().size(); k++) {
            int index = k;
            List<NodeCurve.ChunkCost> costs =
                    all.stream().map(c -> c.chunks().get(index)).toList();
            int chunk = costs.get(0).chunkBytes();
            for (int i = 1; i < costs.size(); i++) {
                require(
                        costs.get(i).chunkBytes() == chunk,
                        i,
                        "has chunk " + costs.get(i).chunkBytes() + " B where launch 1" + " has " + chunk + " B in its "
                                + name);
            }
            chunks.add(new NodeCurve.ChunkCost(
                    chunk,
                    statistic.time(values(costs, NodeCurve.ChunkCost::fillSeconds)),
                    pointwise(
                            name + ", chunk " + chunk + " B",
                            costs.stream().map(NodeCurve.ChunkCost::stages).toList(),
                            statistic)));
        }
        return new NodeCurve(curve.transport(), curve.nodeSize(), chunks).smoothed();
    }

    /** The merged time at every size of {@code series}, which must all have the same sizes. */
    private static List<TimedSize> pointwise(String what, List<List<TimedSize>> series, Statistic statistic) {
        List<TimedSize> first = series.get(0);
        List<Long> expected = first.stream().map(TimedSize::bytes).toList();
        for (int i = 1; i < series.size(); i++) {
            List<Long> sizes = series.get(i).stream().map(TimedSize::bytes).toList();
            require(sizes.equals(expected), i, "has " + what + " at sizes " + sizes + ", launch 1 at " + expected);
        }
        List<TimedSize> result = new ArrayList<>();
        for (int p = 0; p < first.size(); p++) {
            int point = p;
            result.add(new TimedSize(
                    first.get(p).bytes(),
                    statistic.time(values(series, s -> s.get(point).seconds()))));
        }
        return result;
    }

    private static <T> double[] values(List<T> items, ToDoubleFunction<T> value) {
        return items.stream().mapToDouble(value).toArray();
    }

    /** The median (the mean of the middle two for an even count). */
    static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        int mid = v.length / 2;
        return v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
    }

    private static void require(boolean ok, int launch, String problem) {
        if (!ok) {
            throw new IllegalArgumentException("calibration launch " + (launch + 1) + " " + problem
                    + ": calibrate every launch on the same hardware with the same options");
        }
    }
}
